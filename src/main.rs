//! The `lazuli` binary. Without arguments it speaks UCI on standard input and output. With
//! arguments it runs them as one command and exits, as Stockfish does: `lazuli bench`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.split_first() {
        None => lazuli::uci::run_stdio(),
        Some((&"bench", rest)) => lazuli::bench::run_cli(rest),
        Some((&"study", rest)) => lazuli::study::run_cli(rest),
        Some(_) => {
            let mut uci = match lazuli::uci::Uci::new(lazuli::uci::Output::stdout()) {
                Ok(uci) => uci,
                Err(e) => return fail(&e),
            };
            uci.command(&args.join(" "));
            uci.run(std::io::empty());
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

fn fail(e: &lazuli::Error) -> ExitCode {
    eprintln!("lazuli: {e}");
    ExitCode::FAILURE
}
