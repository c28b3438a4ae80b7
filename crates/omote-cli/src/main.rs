//! `omote`: facial animation for VRM avatars and anime-style characters.
//!
//! Each subcommand lives in `cmd/<name>.rs` with its own `Args` and `run`.

mod cmd;
mod output;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "omote",
    version,
    about = "Facial animation runtime for VRM avatars: tracking, lip sync, blinks, gaze."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the built-in character through a built-in timeline; write an anim and a plot.
    Demo(cmd::demo::DemoArgs),
    /// Drive the rig from a face-tracking sequence (MediaPipe JSON lines); write an anim and a plot.
    Retarget(cmd::retarget::RetargetArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo(args) => cmd::demo::run(args).map(|()| ExitCode::SUCCESS),
        Command::Retarget(args) => cmd::retarget::run(args).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
