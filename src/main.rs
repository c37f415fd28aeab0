//! The `lazuli` binary. Without arguments it speaks UCI on standard input and output. Its
//! subcommands (`bench`, `bench scaling`, `study nullmove`) are parsed by clap and live in this
//! binary's own module tree, outside the library (the network's data generator and trainer
//! are the lab's, `lab/`). Any other
//! words are run as one UCI command, then the binary exits, as Stockfish does: `lazuli go
//! perft 5`.

mod tools;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use lazuli::{Error, Output, Uci};

/// The command line; `--help` shows the doc comments.
#[derive(Parser, Debug)]
#[command(
    name = "lazuli",
    version,
    about = "lazuli: a UCI chess engine (Lazy SMP, verified null-move pruning)",
    override_usage = "lazuli [COMMAND]\n       lazuli [UCI COMMAND...]",
    after_help = "Without arguments lazuli speaks UCI on standard input and output, as chess GUIs\n\
                  and match tools expect. Any other words are run as one UCI command, then lazuli\n\
                  exits: `lazuli go perft 5`, `lazuli eval`."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The bench: node count and speed over 37 positions at a fixed depth
    Bench(tools::BenchArgs),
    /// Research studies (`study nullmove`: the verified null-move experiment)
    #[command(subcommand)]
    Study(tools::study::StudyCommand),
    /// Any other words: one UCI command, then exit.
    #[command(external_subcommand)]
    Uci(Vec<String>),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        None => lazuli::run_stdio(),
        Some(Command::Bench(args)) => tools::bench_cli(args),
        Some(Command::Study(tools::study::StudyCommand::Nullmove(config))) => {
            tools::study::run_cli(&config)
        }
        Some(Command::Uci(words)) => one_command(&words),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lazuli: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The words as one UCI command, then exit.
fn one_command(words: &[String]) -> Result<(), Error> {
    let mut uci = Uci::new(Output::stdout())?;
    uci.command(&words.join(" "));
    uci.run(std::io::empty());
    Ok(())
}
