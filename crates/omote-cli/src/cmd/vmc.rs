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

use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};
use glam::Quat;
use omote_core::{ANIM_VERSION, Anim, ExpressionTracks};
use omote_vmc::{
    BlendNames, BlendWeights, BonePose, VmcFrameWriter, VmcReceiver, channel_from_wire,
};

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

/// Which expression names go on the wire.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum WireNames {
    /// VRM 0.x clip names (A I U E O, Blink, Joy, Angry, Sorrow, Fun …): most receivers.
    Vrm0,
    /// VRM 1.0 names (aa ih ou ee oh, blink, happy …).
    Vrm1,
}

impl From<WireNames> for BlendNames {
    fn from(n: WireNames) -> Self {
        match n {
            WireNames::Vrm0 => BlendNames::Vrm0,
            WireNames::Vrm1 => BlendNames::Vrm1,
        }
    }
}

/// Which expression weights go on the wire.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum WireWeights {
    /// After the VRM 1.0 override rules, what the face shows: for VRM 0.x models (no
    /// override rules). The default with `vrm0` names.
    Applied,
    /// Before the override rules: for VRM 1.0 models, which apply them. The default with
    /// `vrm1` names.
    Input,
}

impl WireWeights {
    /// The choice, or the default for `names` when none was given.
    pub fn resolve(choice: Option<Self>, names: WireNames) -> BlendWeights {
        match choice {
            Some(Self::Applied) => BlendWeights::Applied,
            Some(Self::Input) => BlendWeights::Input,
            None => BlendWeights::for_names(names.into()),
        }
    }
}

#[derive(Args, Debug)]
struct SendArgs {
    /// The anim to play (`*.anim.json`).
    anim: PathBuf,
    /// Where the marionette listens.
    #[arg(long, default_value = "127.0.0.1:39539")]
    to: SocketAddr,
    /// Expression names on the wire.
    #[arg(long, value_enum, default_value = "vrm0")]
    names: WireNames,
    /// Expression weights on the wire [default: applied with vrm0 names, input with vrm1].
    #[arg(long, value_enum)]
    weights: Option<WireWeights>,
    /// Playback speed (2 = twice as fast).
    #[arg(long, default_value_t = 1.0)]
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
    /// Address to listen on (use 0.0.0.0:39539 to accept other machines).
    #[arg(long, default_value = "127.0.0.1:39539")]
    bind: SocketAddr,
    /// Record what arrives as an anim (frames sampled at --fps on the performer's clock).
    #[arg(long)]
    record: Option<PathBuf>,
    /// Frame rate of the recording.
    #[arg(long, default_value_t = 60.0)]
    fps: f32,
    /// Stop after this many seconds.
    #[arg(long)]
    seconds: Option<f64>,
    /// Stop when nothing arrived for this many seconds (after the first packet).
    #[arg(long, default_value_t = 3.0)]
    idle: f64,
}

pub fn run(args: VmcArgs) -> anyhow::Result<()> {
    match args.command {
        VmcCommand::Send(a) => send(a),
        VmcCommand::Listen(a) => listen(a),
    }
}

/// A UDP socket for sending to `to`: bound to loopback when the target is local.
pub fn sender_socket(to: SocketAddr) -> anyhow::Result<UdpSocket> {
    let local: SocketAddr = match (to.is_ipv4(), to.ip().is_loopback()) {
        (true, true) => "127.0.0.1:0".parse()?,
        (true, false) => "0.0.0.0:0".parse()?,
        (false, true) => "[::1]:0".parse()?,
        (false, false) => "[::]:0".parse()?,
    };
    UdpSocket::bind(local).with_context(|| format!("cannot open a UDP socket to send to {to}"))
}

/// Sends one packet; a marionette that is not running yet (connection refused on
/// loopback) is not an error for a live sender.
pub fn send_packet(socket: &UdpSocket, to: SocketAddr, bytes: &[u8]) -> anyhow::Result<()> {
    match socket.send_to(bytes, to) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => Ok(()),
        Err(e) => Err(e).with_context(|| format!("send to {to} failed")),
    }
}

fn send(args: SendArgs) -> anyhow::Result<()> {
    if !(args.speed.is_finite() && args.speed > 0.0) {
        bail!("--speed must be a positive number");
    }
    let anim = omote_config::load_anim(&args.anim)?;
    let frames = anim.frames();
    if frames == 0 {
        bail!("{}: the anim has no frames", args.anim.display());
    }
    let socket = sender_socket(args.to)?;
    let weight_kind = WireWeights::resolve(args.weights, args.names);
    let tracks = weight_kind.pick(anim.applied(), &anim.expressions);
    let names: Vec<&str> = tracks.0.iter().map(|(n, _)| n.as_str()).collect();
    let mut writer = VmcFrameWriter::new(names.iter().copied(), args.names.into());
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
    let frame_dt = 1.0 / (f64::from(anim.fps) * args.speed);
    let start = Instant::now();
    let mut sent = 0u64;
    loop {
        for i in 0..frames {
            let due = start + Duration::from_secs_f64(sent as f64 * frame_dt);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            for (w, (_, track)) in weights.iter_mut().zip(&tracks.0) {
                *w = track[i];
            }
            let pose = BonePose {
                head: (!args.no_head).then(|| Quat::from_array(anim.head[i])),
                left_eye: eyes_move.then(|| Quat::from_array(anim.left_eye[i])),
                right_eye: eyes_move.then(|| Quat::from_array(anim.right_eye[i])),
            };
            let t = i as f32 / anim.fps;
            send_packet(&socket, args.to, writer.write(t, &weights, &pose))?;
            sent += 1;
        }
        if !args.repeat {
            break;
        }
    }
    eprintln!(
        "vmc send: {sent} frames in {:.2} s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Builds the recorded anim frame by frame.
struct Recording {
    fps: f32,
    channels: Vec<(String, Vec<f32>)>,
    head: Vec<[f32; 4]>,
    left_eye: Vec<[f32; 4]>,
    right_eye: Vec<[f32; 4]>,
    next_t: Option<f64>,
}

impl Recording {
    fn new(fps: f32) -> Self {
        Self {
            fps,
            channels: Vec::new(),
            head: Vec::new(),
            left_eye: Vec::new(),
            right_eye: Vec::new(),
            next_t: None,
        }
    }

    /// Appends frames up to performer time `t` with the receiver's current state.
    fn advance(&mut self, t: f64, r: &VmcReceiver) {
        let dt = 1.0 / f64::from(self.fps);
        let next = self.next_t.get_or_insert(t);
        // Tolerate float noise in the performer's clock.
        while *next <= t + 1e-4 {
            let n = self.head.len();
            // Channels in first-seen order; earlier frames of a new channel are 0.
            let mut seen: Vec<(&str, f32)> = r
                .blends()
                .iter()
                .map(|(k, v)| (channel_from_wire(k), *v))
                .collect();
            seen.sort_by(|a, b| a.0.cmp(b.0));
            for (name, _) in &seen {
                if !self.channels.iter().any(|(c, _)| c == name) {
                    self.channels.push(((*name).to_owned(), vec![0.0; n]));
                }
            }
            for (c, track) in &mut self.channels {
                let v = seen.iter().find(|(name, _)| name == c).map_or(0.0, |s| s.1);
                track.push(v);
            }
            let rot = |name: &str| {
                r.bone(name)
                    .map_or([0.0, 0.0, 0.0, 1.0], |b| b.1.to_array())
            };
            self.head.push(rot("Head"));
            self.left_eye.push(rot("LeftEye"));
            self.right_eye.push(rot("RightEye"));
            *next += dt;
        }
    }

    fn finish(self) -> Anim {
        let frames = self.head.len();
        Anim {
            format: "omote-anim".into(),
            version: ANIM_VERSION,
            fps: self.fps,
            duration: frames as f32 / self.fps,
            // What arrived; which override rules the performer applied is unknown.
            expressions: ExpressionTracks(self.channels),
            applied_expressions: None,
            head: self.head,
            left_eye: self.left_eye,
            right_eye: self.right_eye,
            look_at: vec![[0.0, 0.0]; frames],
            events: Vec::new(),
        }
    }
}

fn listen(args: ListenArgs) -> anyhow::Result<()> {
    if !(args.fps.is_finite() && args.fps > 0.0 && args.fps <= 1000.0) {
        bail!("--fps must be in (0, 1000]");
    }
    let socket = UdpSocket::bind(args.bind)
        .with_context(|| format!("cannot listen on {} (is another app using it?)", args.bind))?;
    socket.set_read_timeout(Some(Duration::from_millis(100)))?;
    eprintln!("vmc listen: on {}", args.bind);
    let mut receiver = VmcReceiver::new();
    let mut recording = args.record.as_ref().map(|_| Recording::new(args.fps));
    let mut buf = vec![0u8; 65_536];
    let started = Instant::now();
    let mut first: Option<Instant> = None;
    let mut last = Instant::now();
    let (mut packets, mut bad) = (0u64, 0u64);
    loop {
        if args
            .seconds
            .is_some_and(|s| started.elapsed().as_secs_f64() >= s)
        {
            break;
        }
        if first.is_some() && last.elapsed().as_secs_f64() >= args.idle {
            break;
        }
        let n = match socket.recv_from(&mut buf) {
            Ok((n, _)) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                continue;
            }
            Err(e) => return Err(e).context("receive failed"),
        };
        let now = Instant::now();
        let t0 = *first.get_or_insert(now);
        last = now;
        packets += 1;
        let applied = match omote_vmc::osc::parse_packet(&buf[..n]).and_then(|m| receiver.apply(&m))
        {
            Ok(a) => a,
            Err(e) => {
                bad += 1;
                if bad <= 5 {
                    eprintln!("vmc listen: packet {packets} ignored: {e}");
                }
                continue;
            }
        };
        if let (Some(rec), true) = (recording.as_mut(), applied > 0) {
            let t = receiver
                .time()
                .map_or_else(|| (now - t0).as_secs_f64(), f64::from);
            rec.advance(t, &receiver);
        }
    }
    let mut blends: Vec<(&String, &f32)> = receiver.blends().iter().collect();
    blends.sort_by(|a, b| a.0.cmp(b.0));
    eprintln!(
        "vmc listen: {packets} packets ({bad} malformed), {} blend/apply, {} blend shapes",
        receiver.applies(),
        blends.len()
    );
    // The latest non-zero values, by omote channel name.
    for (name, v) in blends.iter().filter(|(_, v)| **v >= 5e-4).take(20) {
        println!("{}\t{v:.3}", channel_from_wire(name));
    }
    if let (Some(path), Some(rec)) = (&args.record, recording) {
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
