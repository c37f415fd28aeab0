//! The `lazuli` binary. Without arguments it speaks UCI on standard input and output. With
//! arguments it runs them as one command and exits, as Stockfish does: `lazuli bench`. The
//! research tools (`bench scaling`, `study nullmove`) live in this binary's own module tree,
//! outside the library.

mod tools;

use std::process::ExitCode;

use lazuli::{Error, Output, Uci};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.split_first() {
        None => lazuli::run_stdio(),
        Some((&"bench", rest)) => tools::bench_cli(rest),
        Some((&"study", rest)) => tools::study::run_cli(rest),
        Some((&"datagen", rest)) => tools::datagen::run_cli(rest),
        Some((&"train", rest)) => tools::train::run_cli(rest).map_err(Error::InvalidCommand),
        Some(_) => one_command(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lazuli: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The arguments as one UCI command, then exit.
fn one_command(args: &[&str]) -> Result<(), Error> {
    let mut uci = Uci::new(Output::stdout())?;
    uci.command(&args.join(" "));
    uci.run(std::io::empty());
    Ok(())
}
