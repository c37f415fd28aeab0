//! Gives the shared library its SONAME, `liblazuli.so.<major version>` (`liblazuli.so.0`), on
//! ELF targets: programs linked against it record that name, which `make install` creates
//! beside the fully versioned file (docs/c-api.md, "Installing"). Only the cdylib gets it.

fn main() {
    let family = std::env::var("CARGO_CFG_TARGET_FAMILY").unwrap_or_default();
    let vendor = std::env::var("CARGO_CFG_TARGET_VENDOR").unwrap_or_default();
    // Unix but not Apple's (Mach-O, where the install name plays this part).
    let elf = family.split(',').any(|f| f == "unix") && vendor != "apple";
    if elf {
        let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets the version");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,liblazuli.so.{major}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
