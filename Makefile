# `make` builds the engine to $(EXE) (default: lazuli), as OpenBench expects.
EXE ?= lazuli
CARGO ?= cargo
CC ?= cc
CFLAGS_STRICT = -std=c11 -Wall -Wextra -Werror -pedantic -O2 -pthread
# What the Rust static library needs besides itself (cargo rustc --release --lib --crate-type
# staticlib -- --print native-static-libs). The one place they are written: the tests read
# this line (tests/common/c.rs), and `make install` writes it into lazuli.pc and the CMake
# package. Keep it on one line.
NATIVE_LIBS = -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
LIB = target/release/liblazuli.a

.PHONY: all build native test bench header lib abi-check example c-test c-valgrind c-soak c-soak-valgrind bench-c install uninstall clean

all: build

build:
	$(CARGO) build --release
	cp target/release/lazuli $(EXE)

# The engine for this machine's CPU alone (Stockfish's ARCH=native): every instruction set it
# has, everywhere, and the network's dispatch decided at compile time. `build` runs on any
# x86-64 and picks the network's AVX-512, AVX2 or SSE2 code at run time. Same node counts.
native:
	RUSTFLAGS="-C target-cpu=native" $(CARGO) build --release
	cp target/release/lazuli $(EXE)

test:
	$(CARGO) test

bench: build
	./$(EXE) bench

# Regenerate include/lazuli.h from src/ffi/ (cargo test fails while it is stale).
header:
	LAZULI_BLESS=1 $(CARGO) test --test c_api header

# The libraries, and target/release/liblazuli.so.0, the SONAME that programs linked against
# target/release/liblazuli.so look for at run time (a link to it; cargo does not make one).
lib:
	$(CARGO) build --release --lib
	ln -sf liblazuli.so target/release/$(SONAME)

# The C starting point for GUI authors: 2-thread analysis with live info lines
# (SYZYGY=folder: also a rook ending with those Syzygy tables).
example: lib
	$(CC) $(CFLAGS_STRICT) -Iinclude examples/analysis.c $(LIB) $(NATIVE_LIBS) -o target/analysis
	./target/analysis $(SYZYGY)

# The C tests against the release libraries, static and shared.
c-test: lib
	mkdir -p target/c
	$(CC) $(CFLAGS_STRICT) -Iinclude tests/c/test_api.c $(LIB) $(NATIVE_LIBS) -o target/c/test_api_static
	$(CC) $(CFLAGS_STRICT) -Iinclude tests/c/test_api.c -Ltarget/release -Wl,-rpath,$(CURDIR)/target/release -llazuli -o target/c/test_api_shared
	target/c/test_api_static
	target/c/test_api_shared

# The C tests under valgrind: no leak, no invalid read or write (exit status 1 otherwise).
VALGRIND = valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible \
	--errors-for-leak-kinds=definite,indirect,possible --suppressions=tests/c/valgrind.supp --error-exitcode=1
c-valgrind: c-test
	$(VALGRIND) target/c/test_api_static
	$(VALGRIND) target/c/test_api_shared

# The C library soak (tests/c/soak.c): 4 engines, 3 host threads each, random calls for
# SECONDS, resident memory sampled every SAMPLE seconds; fails on an undocumented result or
# memory growth. c-soak-valgrind: the same under valgrind (no error, no leak). Each sample
# also shows glibc's heap in use and the free memory its arenas hold; TRIM=1 calls
# malloc_trim(0) before each sample (allocator retention against growth).
SECONDS ?= 3600
SAMPLE ?= 60
SEED ?= 1
TRIM ?= 0
c-soak: lib
	mkdir -p target/c
	$(CC) $(CFLAGS_STRICT) -Iinclude tests/c/soak.c $(LIB) $(NATIVE_LIBS) -o target/c/soak
	target/c/soak $(SECONDS) $(SAMPLE) $(SEED) $(TRIM)

c-soak-valgrind: lib
	mkdir -p target/c
	$(CC) $(CFLAGS_STRICT) -Iinclude tests/c/soak.c $(LIB) $(NATIVE_LIBS) -o target/c/soak
	$(VALGRIND) target/c/soak $(SECONDS) $(SAMPLE) $(SEED) $(TRIM) 0

# The library's ABI against the committed description, abi/liblazuli.abi (tools/abi_check.sh).
abi-check:
	tools/abi_check.sh

# NPS through the C library against the UCI binary, alternating.
bench-c:
	benches/compare_c.sh

# `make install PREFIX=/usr/local`: the binary, both libraries, the headers, lazuli.pc for
# pkg-config and the CMake package (find_package(lazuli), target lazuli::lazuli), from the
# templates in tools/install/. The shared library is installed as liblazuli.so.$(VERSION),
# with the links $(SONAME) (its SONAME, what programs load) and liblazuli.so (what
# -llazuli finds). DESTDIR is prepended to every path written (staged installs).
# It installs cargo's release build, made first (a no-op when up to date); with BUILD=no it
# installs the libraries in ARTIFACTS and the binary LAZULI_EXE as they are, without running
# cargo (the tests install what `cargo test` has just built).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR ?= $(LIBDIR)/cmake/lazuli
BUILD ?= yes
ARTIFACTS ?= $(or $(CARGO_TARGET_DIR),target)/release
LAZULI_EXE ?= $(ARTIFACTS)/lazuli
INSTALL ?= install
# The version of the [package] in Cargo.toml, the one place it is written.
VERSION := $(shell sed -n '/^\[package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' Cargo.toml)
# The SONAME (build.rs sets it: the major version).
SONAME = liblazuli.so.$(firstword $(subst ., ,$(VERSION)))
# The installed files, for uninstall.
INSTALLED = $(BINDIR)/lazuli $(LIBDIR)/liblazuli.so.$(VERSION) $(LIBDIR)/$(SONAME) \
	$(LIBDIR)/liblazuli.so $(LIBDIR)/liblazuli.a \
	$(INCLUDEDIR)/lazuli.h $(INCLUDEDIR)/lazuli.hpp $(PKGCONFIGDIR)/lazuli.pc \
	$(CMAKEDIR)/lazuliConfig.cmake $(CMAKEDIR)/lazuliConfigVersion.cmake
SPACE := $(subst ,, )
# Fills in a template: lazuli.pc writes its directories under ${prefix} where they lie under
# PREFIX; the CMake files find theirs relative to themselves (relocatable).
TEMPLATE = sed -e 's|@VERSION@|$(VERSION)|g' \
	-e 's|@PREFIX@|$(PREFIX)|g' \
	-e 's|@PC_LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|g' \
	-e 's|@PC_INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|g' \
	-e 's|@NATIVE_LIBS@|$(NATIVE_LIBS)|g' \
	-e 's|@CMAKE_NATIVE_LIBS@|$(subst $(SPACE),;,$(strip $(patsubst -l%,%,$(NATIVE_LIBS))))|g' \
	-e "s|@CMAKE_TO_LIBDIR@|$$(realpath -m -s --relative-to=$(CMAKEDIR) $(LIBDIR))|g" \
	-e "s|@CMAKE_TO_INCLUDEDIR@|$$(realpath -m -s --relative-to=$(CMAKEDIR) $(INCLUDEDIR))|g"

install:
	@for dir in $(PREFIX) $(BINDIR) $(LIBDIR) $(INCLUDEDIR) $(PKGCONFIGDIR) $(CMAKEDIR); do \
		case "$$dir" in /*) ;; *) echo "make install: $$dir is not an absolute path" >&2; exit 1;; esac; \
	done
	@test -n "$(VERSION)" || { echo "make install: no version in Cargo.toml" >&2; exit 1; }
	$(if $(filter no,$(BUILD)),,$(CARGO) build --release)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(CMAKEDIR)
	$(INSTALL) -m 755 $(LAZULI_EXE) $(DESTDIR)$(BINDIR)/lazuli
	$(INSTALL) -m 755 $(ARTIFACTS)/liblazuli.so $(DESTDIR)$(LIBDIR)/liblazuli.so.$(VERSION)
	ln -sf liblazuli.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/liblazuli.so
	$(INSTALL) -m 644 $(ARTIFACTS)/liblazuli.a $(DESTDIR)$(LIBDIR)/liblazuli.a
	$(INSTALL) -m 644 include/lazuli.h include/lazuli.hpp $(DESTDIR)$(INCLUDEDIR)/
	$(TEMPLATE) tools/install/lazuli.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/lazuli.pc
	$(TEMPLATE) tools/install/lazuliConfig.cmake.in > $(DESTDIR)$(CMAKEDIR)/lazuliConfig.cmake
	$(TEMPLATE) tools/install/lazuliConfigVersion.cmake.in > $(DESTDIR)$(CMAKEDIR)/lazuliConfigVersion.cmake

# Removes what install wrote (with the same PREFIX, directories and DESTDIR), and the
# package's own CMake directory; shared directories such as lib/pkgconfig stay.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rmdir $(DESTDIR)$(CMAKEDIR) 2>/dev/null || true

clean:
	$(CARGO) clean
	rm -f $(EXE)
