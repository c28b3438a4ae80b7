//! `omote vmc`: speak the VMC protocol (OSC over UDP) with VTuber tools.
//!
//! ```text
//! omote vmc send ANIM.json [--to 127.0.0.1:39539] [--names vrm0|vrm1] [--weights applied|input] [--speed 1] [--loop]
//! omote vmc listen [--bind 127.0.0.1:39539] [--record OUT.anim.json] [--fps 60] [--seconds S] [--idle 3]
//! ```
//!
//! `send` plays an anim (from `demo`, `retarget`, `simulate` …) in real time to a VMC
//! marionette (VSeeFace, VMagicMirror, Warudo, EVMC4U): expressions as blend shape values,
//! head and eye bones. `listen` is a marionette: it prints what a performer sends and can
//! record it as an anim.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::bail;
use clap::{Args, Subcommand};
use glam::Quat;
use omote_live::{ListenLimits, Pacer, VmcListener, VmcSink};
use omote_vmc::{BonePose, VmcRecorder, channel_from_wire};

use crate::args::{WireNames, WireWeights};
use crate::limits;

/// VMC protocol: send an anim to a VTuber app, or listen to one.
#[derive(Args, Debug)]
pub struct VmcArgs {
    #[command(subcommand)]
    command: VmcCommand,
}

#[derive(Subcommand, Debug)]
enum VmcCommand {
    /// Play an anim in real time to a VMC marionette.
    Send(SendArgs),
    /// Receive VMC from a performer: print a summary, optionally record an anim.
    Listen(ListenArgs),
}

#[derive(Args, Debug)]
struct SendArgs {
    /// The anim to play (`*.anim.json`).
    anim: PathBuf,
    /// Where the marionette listens: PORT (on 127.0.0.1), localhost:PORT, HOST:PORT,
    /// IP:PORT or [IPv6]:PORT.
    #[arg(long, value_name = "[HOST:]PORT", default_value = "127.0.0.1:39539", value_parser = limits::destination)]
    to: SocketAddr,
    /// Expression names on the wire.
    #[arg(long, value_enum, default_value = "vrm0")]
    names: WireNames,
    /// Expression weights on the wire [default: applied with vrm0 names, input with vrm1].
    #[arg(long, value_enum)]
    weights: Option<WireWeights>,
    /// Playback speed (2 = twice as fast), 0.01–100; the anim's fps × speed (frames per
    /// second) is at most 1000.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true, value_parser = limits::speed)]
    speed: f64,
    /// Start again at the end until interrupted.
    #[arg(long = "loop")]
    repeat: bool,
    /// Do not send the head bone (when another performer drives the head).
    #[arg(long)]
    no_head: bool,
}

#[derive(Args, Debug)]
struct ListenArgs {
    /// Address to listen on: PORT (on 127.0.0.1), localhost:PORT, HOST:PORT, IP:PORT or
    /// [IPv6]:PORT (0.0.0.0:39539 accepts other machines — any of them: what they send
    /// is bounded, but it is recorded and printed).
    #[arg(long, value_name = "[HOST:]PORT", default_value = "127.0.0.1:39539", value_parser = limits::address)]
    bind: SocketAddr,
    /// Record what arrives as an anim (frames sampled at --fps on the performer's clock),
    /// written when the session ends: at --seconds, after --idle, or on Ctrl-C.
    #[arg(long)]
    record: Option<PathBuf>,
    /// Frame rate of the recording (1–1000).
    #[arg(long, default_value_t = 60.0, allow_negative_numbers = true, value_parser = limits::fps_f32)]
    fps: f32,
    /// Stop after this many seconds (at most 86400).
    #[arg(long, allow_negative_numbers = true, value_parser = limits::seconds)]
    seconds: Option<f64>,
    /// Stop when nothing arrived for this many seconds after the first packet (at most 86400).
    #[arg(long, default_value_t = 3.0, allow_negative_numbers = true, value_parser = limits::seconds)]
    idle: f64,
}

pub fn run(args: VmcArgs) -> anyhow::Result<()> {
    match args.command {
        VmcCommand::Send(a) => send(a),
        VmcCommand::Listen(a) => listen(a),
    }
}

fn send(args: SendArgs) -> anyhow::Result<()> {
    let anim = omote_config::load_anim(&args.anim)?;
    let frames = anim.frames();
    if frames == 0 {
        bail!("{}: the anim has no frames", args.anim.display());
    }
    let rate = f64::from(anim.fps) * args.speed;
    if rate > limits::MAX_FPS {
        bail!(
            "{}: {} fps at --speed {} is {rate} frames per second, over the limit of {}",
            args.anim.display(),
            anim.fps,
            args.speed,
            limits::MAX_FPS
        );
    }
    let weight_kind = WireWeights::resolve(args.weights, args.names);
    let tracks = weight_kind.pick(anim.applied(), &anim.expressions);
    if let Some(t) = blinks_only_on_arkit_lids(tracks, anim.fps) {
        crate::output::warn(&format!(
            "{}: at {t:.1} s (and maybe after) the anim blinks with ARKit eyeBlinkLeft/Right \
             alone, as the avatar it was made for does under an emotion: a model without \
             perfect-sync clips does not blink there. Made on that model (`--rig MODEL.vrm`, \
             a scene's `rig`), the anim blinks with what the model has",
            args.anim.display()
        ));
    }
    let names: Vec<&str> = tracks.0.iter().map(|(n, _)| n.as_str()).collect();
    let mut sink = VmcSink::new(args.to, names.iter().copied(), args.names.into())?;
    let mut weights = vec![0f32; names.len()];
    let eyes_move = anim
        .left_eye
        .iter()
        .chain(&anim.right_eye)
        .any(|q| Quat::from_array(*q).angle_between(Quat::IDENTITY) > 1e-4);
    eprintln!(
        "vmc send: {} ({} frames at {} fps, {} expressions, {:?} weights) → {}{}",
        args.anim.display(),
        frames,
        anim.fps,
        names.len(),
        weight_kind,
        args.to,
        if args.repeat { ", looping" } else { "" }
    );
    let mut pacer = Pacer::new(1.0 / (f64::from(anim.fps) * args.speed));
    let mut sent = 0u64;
    loop {
        for i in 0..frames {
            pacer.wait_for(sent);
            for (w, (_, track)) in weights.iter_mut().zip(&tracks.0) {
                *w = track[i];
            }
            let pose = BonePose {
                head: (!args.no_head).then(|| Quat::from_array(anim.head[i])),
                left_eye: eyes_move.then(|| Quat::from_array(anim.left_eye[i])),
                right_eye: eyes_move.then(|| Quat::from_array(anim.right_eye[i])),
            };
            let t = i as f32 / anim.fps;
            sink.send_weights(t, &weights, &pose)?;
            sent += 1;
        }
        if !args.repeat {
            break;
        }
    }
    eprintln!(
        "vmc send: {sent} frames in {:.2} s",
        pacer.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The first time (s) the anim blinks with the ARKit lid channels while the VRM blink
/// presets stay open — what a model without those channels never shows.
fn blinks_only_on_arkit_lids(tracks: &omote_core::anim::ExpressionTracks, fps: f32) -> Option<f32> {
    let track = |n: &str| tracks.get(n);
    let (left, right) = (track("eyeBlinkLeft")?, track("eyeBlinkRight")?);
    let presets: Vec<&[f32]> = ["blink", "blinkLeft", "blinkRight"]
        .iter()
        .filter_map(|n| track(n))
        .collect();
    (0..left.len())
        .find(|&i| {
            left[i].min(right[i]) > 0.5 && presets.iter().all(|p| p.get(i).is_none_or(|v| *v < 0.1))
        })
        .map(|i| i as f32 / fps)
}

fn listen(args: ListenArgs) -> anyhow::Result<()> {
    if let Some(path) = &args.record {
        crate::output::check_output_file(path, "--record")?;
    }
    let mut listener = VmcListener::bind(args.bind)?;
    eprintln!("vmc listen: on {} (Ctrl-C to stop)", args.bind);
    if args.record.is_some() {
        listener.record(VmcRecorder::new(args.fps).with_max_values(limits::MAX_ANIM_VALUES));
    }
    let stop = crate::interrupt::install()?;
    listener.stop_on(stop.clone());
    // Both are within a day (the parsers): exact durations.
    let limits = ListenLimits {
        max: args.seconds.map(Duration::from_secs_f64),
        idle: Duration::from_secs_f64(args.idle),
    };
    let mut bad = 0u64;
    let stats = listener.run(limits, |n, e, skipped| {
        bad += 1;
        if bad <= 5 {
            let what = match skipped {
                None => " ignored".to_string(),
                Some(1) => ": 1 message ignored, the rest applied".to_string(),
                Some(k) => format!(": {k} messages ignored, the rest applied"),
            };
            eprintln!(
                "vmc listen: packet {n}{what}: {}",
                omote_fs::echo(&e.to_string())
            );
        }
    })?;
    if crate::interrupt::stopped(&stop) {
        eprintln!("vmc listen: interrupted");
    }
    let receiver = listener.receiver();
    let mut blends: Vec<(&String, &f32)> = receiver.blends().iter().collect();
    blends.sort_by(|a, b| a.0.cmp(b.0));
    let bones: Vec<&str> = ["Head", "LeftEye", "RightEye"]
        .into_iter()
        .filter(|b| receiver.bone(b).is_some())
        .collect();
    let shown = blends.iter().filter(|(_, v)| **v >= 5e-4).count().min(20);
    eprintln!(
        "vmc listen: {} packets ({} malformed, {} messages ignored), {} blend/apply, {} blend shapes, bones: {}{}",
        stats.packets,
        stats.malformed,
        stats.skipped_messages,
        receiver.applies(),
        blends.len(),
        if bones.is_empty() {
            "none".to_string()
        } else {
            bones.join(" ")
        },
        if shown > 0 {
            format!("; the last values of the {shown} non-zero ones follow (NAME<TAB>VALUE)")
        } else {
            String::new()
        }
    );
    // The latest non-zero values, by omote channel name.
    for (name, v) in blends.iter().filter(|(_, v)| **v >= 5e-4).take(20) {
        // A performer's name: one short line, whatever it sends.
        println!("{}\t{v:.3}", omote_fs::echo(channel_from_wire(name)));
    }
    if let (Some(path), Some(rec)) = (&args.record, listener.take_recorder()) {
        if rec.restarts() > 0 || rec.skipped_frames() > 0 {
            eprintln!(
                "vmc listen: the performer's clock jumped or restarted {} times; {} frames \
                 (of gaps, or ahead of the real time) were not recorded",
                rec.restarts(),
                rec.skipped_frames()
            );
        }
        if rec.dropped_channels() > 0 {
            eprintln!(
                "vmc listen: the recording reached its size limit; {} channels first seen after it are not recorded",
                rec.dropped_channels()
            );
        }
        let anim = rec.finish();
        if anim.frames() == 0 {
            bail!(
                "{}: nothing recorded (no Blend/Apply received)",
                path.display()
            );
        }
        crate::output::write_anim(&anim, path)?;
        eprintln!(
            "vmc listen: recorded {} frames ({:.2} s) to {}",
            anim.frames(),
            anim.duration,
            path.display()
        );
    }
    Ok(())
}
