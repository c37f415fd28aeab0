//! `lazuli-lab`: the data generator and the trainer of lazuli's evaluation network.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use lazuli_lab::{datagen, format, train};

/// The command line; `--help` shows the doc comments.
#[derive(Parser, Debug)]
#[command(
    name = "lazuli-lab",
    version,
    about = "lazuli's lab: self-play training data and the network trainer"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Self-play training data for the evaluation network (binpack chunks)
    Datagen(datagen::DatagenConfig),
    /// Train an evaluation network on datagen's data, written as an LZNN file
    Train(train::TrainArgs),
    /// Net files' loss on the positions `train --val X` holds out of the same data
    Loss(train::LossArgs),
    /// The positions the trainer learns from, as marlinformat (for lab/tools/fit_wdl.py)
    Unpack(format::UnpackArgs),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Datagen(config) => datagen::run_cli(&config).map_err(|e| e.to_string()),
        Command::Train(args) => train::run_cli(&args),
        Command::Loss(args) => train::run_loss_cli(&args),
        Command::Unpack(args) => format::unpack_cli(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lazuli-lab: {e}");
            ExitCode::FAILURE
        }
    }
}
