//! `omote`: facial animation for VRM avatars and anime-style characters.
//!
//! Each subcommand lives in `cmd/<name>.rs` with its own `Args` and `run`.

mod args;
mod cmd;
mod interrupt;
mod limits;
mod output;
mod scene_output;
mod stages;
mod viewer_assets;
mod voice_input;

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
#[allow(clippy::large_enum_variant)] // parsed once per run; boxing buys nothing
enum Command {
    /// The built-in scene: two characters, voiced lines, blinks, glances, an orbiting camera; writes what `bake` writes.
    Demo(cmd::demo::DemoArgs),
    /// Bake a dialogue scene (TOML): per character anim, VRMA and plot, with a script of advances and skips.
    Bake(cmd::bake::BakeArgs),
    /// Drive the rig from a face-tracking sequence (MediaPipe JSON lines); write an anim and a plot.
    Retarget(cmd::retarget::RetargetArgs),
    /// Weights of a camera motion map at camera angles, or a plot of the map.
    MotionMap(cmd::motion_map::MotionMapArgs),
    /// Lip sync: analyse voice files into A I U E O N weights per frame; calibrate, plot, eval.
    Lipsync(cmd::lipsync::LipsyncArgs),
    /// Simulate the automatic blink and saccades of a face; write an anim and a plot.
    Simulate(cmd::simulate::SimulateArgs),
    /// Show what a VRM model (0.x or 1.0) holds: meta, expressions, lookAt, face bones.
    Inspect(cmd::inspect::InspectArgs),
    /// Convert an anim (`*.anim.json`) to a VRM Animation (`.vrma`) for a model.
    Convert(cmd::convert::ConvertArgs),
    /// Write the built-in test avatar: a small VRM 1.0 head with all 18 presets and the 52 ARKit shapes.
    Avatar(cmd::avatar::AvatarArgs),
    /// Track faces in images, an image sequence or raw video on stdin (MediaPipe FaceLandmarker in pure Rust).
    Track(cmd::track::TrackArgs),
    /// The one-command avatar app: a camera, a phone tracker over VMC, a replay or a voice in; the avatar out to the browser (OBS), a VMC app and a recording.
    Live(cmd::live::LiveArgs),
    /// A dialogue of voice lines on one character: lip sync, hand-over to the next expression, afterglow mouth, talking/listening eyes.
    Speak(cmd::speak::SpeakArgs),
    /// VMC protocol (OSC/UDP): play an anim to VSeeFace/VMagicMirror/Warudo, or listen to a performer.
    Vmc(cmd::vmc::VmcArgs),
    /// Play an anim on a VRM in the browser (three.js + three-vrm, served on 127.0.0.1).
    View(cmd::view::ViewArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Every result file is checked against the inputs this run has read.
    omote_fs::track_inputs();
    let result = match cli.command {
        Command::Demo(args) => cmd::demo::run(args).map(|()| ExitCode::SUCCESS),
        Command::Bake(args) => cmd::bake::run(args).map(|()| ExitCode::SUCCESS),
        Command::Retarget(args) => cmd::retarget::run(args).map(|()| ExitCode::SUCCESS),
        Command::MotionMap(args) => cmd::motion_map::run(args).map(|()| ExitCode::SUCCESS),
        Command::Lipsync(args) => cmd::lipsync::run(args),
        Command::Simulate(args) => cmd::simulate::run(args).map(|()| ExitCode::SUCCESS),
        Command::Inspect(args) => cmd::inspect::run(args).map(|()| ExitCode::SUCCESS),
        Command::Convert(args) => cmd::convert::run(args).map(|()| ExitCode::SUCCESS),
        Command::Avatar(args) => cmd::avatar::run(args).map(|()| ExitCode::SUCCESS),
        Command::Track(args) => cmd::track::run(args).map(|()| ExitCode::SUCCESS),
        Command::Live(args) => cmd::live::run(args).map(|()| ExitCode::SUCCESS),
        Command::Speak(args) => cmd::speak::run(args).map(|()| ExitCode::SUCCESS),
        Command::Vmc(args) => cmd::vmc::run(args).map(|()| ExitCode::SUCCESS),
        Command::View(args) => cmd::view::run(args).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // Errors quote file contents and network input: escaped for the terminal.
            eprintln!("error: {}", output::error_text(&e));
            ExitCode::FAILURE
        }
    }
}
