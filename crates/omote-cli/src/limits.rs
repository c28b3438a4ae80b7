//! One documented range per quantity, checked where the number enters (clap value
//! parsers), the same in every command. A value outside its range is a usage error
//! (exit 2) naming the range; nothing downstream sees it.
//!
//! | quantity | range | why |
//! |---|---|---|
//! | frame rate (`--fps` of every command) | 1–1000 fps ([`MAX_FPS`]) | the core's anim range (`omote_core::anim::ANIM_MAX_FPS`): fast cameras reach 240–1000 fps; above that a VMC anim is a packet flood and memory follows it |
//! | durations (`--seconds`, `--idle`) | over 0, at most one day ([`MAX_SECONDS`]) | a longer run is a mistake; memory is capped separately ([`check_anim_size`]) |
//! | worker threads (`--jobs`) | 1–[`MAX_JOBS`], never more than inputs | a thread per core is the useful maximum; 10 000 threads for one file is not |
//! | sample rates (`--rate`, `--voice-rate`) | [`omote_audio::MIN_RATE`]–[`omote_audio::MAX_RATE`] Hz | what the resampler takes |
//! | interleaved channels (`--channels`) | 1–[`MAX_CHANNELS`] | 7.1 and multitrack recorders; the chunk buffer is rate × channels |
//! | playback speed (`vmc send --speed`) | [`MIN_SPEED`]–[`MAX_SPEED`], and anim fps × speed ≤ [`MAX_FPS`] packets/s | a frame per packet |
//! | shares and weights (`--mouth-blend`) | 0–1 | a share |
//! | lip sync `--sharpness`, `--n-bias` | 0.001–100, ±100 | what a profile may hold (`omote_lipsync::SHARPNESS_RANGE`, `MAX_BIAS`): a built profile always loads |
//! | frame sizes (`WxH`) | the tracker's image limits (a side ≤ 16384, ≤ 256 MiB RGB) | checked before a buffer is allocated |
//! | anim size (frames × values per frame) | [`MAX_ANIM_VALUES`] | the memory an anim takes (4 bytes a value, ~10 bytes each as JSON), known before work starts |
//! | socket addresses (`view --bind`, `live --view`/`--vmc-in`/`--vmc-out`, `vmc send --to`, `vmc listen --bind`, `lipsync live --vmc`) | `PORT`, `localhost:PORT`, `HOST:PORT`, `IP:PORT`, `[IPv6]:PORT` ([`address`]); a destination's port is not 0 ([`destination`]) | what people type first; a bare port and `localhost` are the IPv4 loopback (servers listen on loopback unless told), without DNS |

use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};

use omote_lipsync::Viseme;
use omote_live::FrameSize;

/// Highest frame rate of every command (and of anim files, `omote_core::anim::ANIM_MAX_FPS`).
pub const MAX_FPS: f64 = omote_core::anim::ANIM_MAX_FPS as f64;
/// Lowest frame rate of every command.
pub const MIN_FPS: f64 = 1.0;
/// Longest duration any command accepts: one day.
pub const MAX_SECONDS: f64 = 86_400.0;
/// Most worker threads `--jobs` starts.
pub const MAX_JOBS: usize = 256;
/// Most interleaved channels of a raw PCM stream.
pub const MAX_CHANNELS: u16 = 64;
/// Slowest playback speed.
pub const MIN_SPEED: f64 = 0.01;
/// Fastest playback speed.
pub const MAX_SPEED: f64 = 100.0;
/// Most numbers an anim a command builds may hold, frames × (expression tracks before
/// and after the override rules + 3 bone rotations + gaze): 2²⁷ ≈ 134 M values, 512 MiB
/// in memory and about 1.3 GB as JSON — e.g. 4 hours at 60 fps on the built-in rig.
pub const MAX_ANIM_VALUES: u64 = 1 << 27;

/// A number as the user wrote it, for a message: `1e-300` stays `1e-300` (its `f64` would
/// print as 300 zeros, its `f32` as `0`); escaped and capped.
fn given(s: &str) -> String {
    omote_fs::echo(s.trim())
}

fn number(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number"))?;
    if !v.is_finite() {
        return Err(format!("`{s}` is not a finite number"));
    }
    Ok(v)
}

fn within(s: &str, lo: f64, hi: f64, what: &str) -> Result<f64, String> {
    let v = number(s)?;
    if !(lo..=hi).contains(&v) {
        return Err(format!(
            "{what} must be between {lo} and {hi}, got {}",
            given(s)
        ));
    }
    Ok(v)
}

/// A frame rate, [`MIN_FPS`]–[`MAX_FPS`].
pub fn fps(s: &str) -> Result<f64, String> {
    within(s, MIN_FPS, MAX_FPS, "the frame rate")
}

/// How long a head calibration gathers faces (`omote live --calibrate`), 0–60 s.
pub fn calibration_s(s: &str) -> Result<f32, String> {
    within(s, 0.0, 60.0, "the calibration time").map(|v| v as f32)
}

/// How old a tracking result may be before it counts as lost (`omote live --stale`),
/// 0.05–10 s.
pub fn stale_s(s: &str) -> Result<f64, String> {
    within(s, 0.05, 10.0, "the stale time")
}

/// [`fps`] as `f32` (anim frame rates).
pub fn fps_f32(s: &str) -> Result<f32, String> {
    fps(s).map(|v| v as f32)
}

/// A duration in seconds: over 0, at most [`MAX_SECONDS`].
pub fn seconds(s: &str) -> Result<f64, String> {
    let v = number(s)?;
    if !(v > 0.0 && v <= MAX_SECONDS) {
        return Err(format!(
            "seconds must be over 0 and at most {MAX_SECONDS} (one day), got {}",
            given(s)
        ));
    }
    Ok(v)
}

/// A moment in seconds from the start (0 or later), as the viewer's `/bake?advance=`
/// says it.
pub fn time_s(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a time in seconds (0 or later)")),
    }
}

/// [`seconds`] as `f32`.
pub fn seconds_f32(s: &str) -> Result<f32, String> {
    seconds(s).map(|v| v as f32)
}

/// A whole number in `lo..=hi`: parsed as a number first, so NaN, infinities and
/// out-of-range values get the same words as for the other quantities.
fn whole(s: &str, lo: u32, hi: u32, what: &str) -> Result<u32, String> {
    let v = number(s)?;
    if !(f64::from(lo)..=f64::from(hi)).contains(&v) {
        return Err(format!(
            "{what} must be between {lo} and {hi}, got {}",
            given(s)
        ));
    }
    if v.fract() != 0.0 {
        return Err(format!("{what} must be a whole number, got {}", given(s)));
    }
    Ok(v as u32)
}

/// A worker thread count, 1–[`MAX_JOBS`].
pub fn jobs(s: &str) -> Result<usize, String> {
    whole(s, 1, MAX_JOBS as u32, "jobs").map(|v| v as usize)
}

/// The threads to start for `inputs` items: `--jobs` (or the cores) but never more
/// than the inputs, at least 1.
pub fn threads_for(jobs: Option<usize>, inputs: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    jobs.unwrap_or(cores).min(inputs).clamp(1, MAX_JOBS)
}

/// A sample rate in Hz, [`omote_audio::MIN_RATE`]–[`omote_audio::MAX_RATE`].
pub fn sample_rate(s: &str) -> Result<u32, String> {
    let (lo, hi) = (omote_audio::MIN_RATE, omote_audio::MAX_RATE);
    whole(s, lo, hi, "the sample rate (Hz)")
}

/// Interleaved channels, 1–[`MAX_CHANNELS`].
pub fn channels(s: &str) -> Result<u16, String> {
    whole(s, 1, u32::from(MAX_CHANNELS), "channels").map(|v| v as u16)
}

/// A playback speed, [`MIN_SPEED`]–[`MAX_SPEED`].
pub fn speed(s: &str) -> Result<f64, String> {
    within(s, MIN_SPEED, MAX_SPEED, "the speed")
}

/// A share or weight, 0–1.
pub fn unit(s: &str) -> Result<f32, String> {
    within(s, 0.0, 1.0, "the value").map(|v| v as f32)
}

/// A lip sync softmax sharpness, [`omote_lipsync::SHARPNESS_RANGE`] (what a profile may hold).
pub fn sharpness(s: &str) -> Result<f32, String> {
    // The f32 ends as written (0.001, not 0.0010000000474974513).
    let (lo, hi) = omote_lipsync::SHARPNESS_RANGE;
    let exact = |v: f32| v.to_string().parse::<f64>().unwrap_or(f64::from(v));
    within(s, exact(lo), exact(hi), "the sharpness").map(|v| v as f32)
}

/// A lip sync log-prior (bias), ±[`omote_lipsync::MAX_BIAS`].
pub fn log_prior(s: &str) -> Result<f32, String> {
    let max = f64::from(omote_lipsync::MAX_BIAS);
    within(s, -max, max, "the log-prior").map(|v| v as f32)
}

/// A context net's weight beside the Gaussians, 0 to [`omote_lipsync::ContextNet::MAX_WEIGHT`].
pub fn net_weight(s: &str) -> Result<f32, String> {
    let max = f64::from(omote_lipsync::ContextNet::MAX_WEIGHT);
    within(s, 0.0, max, "the net's weight").map(|v| v as f32)
}

/// The real-voice shares for `lipsync calibrate --build` (`ProfileBuilder::real_shares`):
/// one number for every vowel, or `V=S` pairs (`U=0.2,O=0.25`) over the defaults.
pub fn real_shares(s: &str) -> Result<[f32; 5], String> {
    // The f32 as written (0.9, not 0.8999999761581421).
    let max = omote_lipsync::MAX_REAL_SHARE
        .to_string()
        .parse::<f64>()
        .unwrap_or(0.9);
    let what = "the real-voice share";
    if !s.contains('=') {
        return within(s, 0.0, max, what).map(|v| [v as f32; 5]);
    }
    let mut shares = omote_lipsync::DEFAULT_REAL_SHARES;
    for pair in s.split(',') {
        let (vowel, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("`{pair}`: give VOWEL=SHARE, e.g. U=0.2"))?;
        let vowel = vowel.trim();
        let mut letters = vowel.chars().map(|c| c.to_ascii_uppercase());
        let k = match (letters.next().and_then(Viseme::from_letter), letters.next()) {
            (Some(v), None) if v != Viseme::N => v.index(),
            _ => return Err(format!("`{vowel}` is not one of the vowels A I U E O")),
        };
        shares[k] = within(value.trim(), 0.0, max, what)? as f32;
    }
    Ok(shares)
}

/// A `WxH` frame size the tracker takes (checked before any buffer is allocated).
pub fn frame_size(s: &str) -> Result<FrameSize, String> {
    let size: FrameSize = s
        .parse()
        .map_err(|e: omote_live::LiveError| e.to_string())?;
    omote_tracker::rgb::check_size(s, u64::from(size.width), u64::from(size.height))
        .map_err(|e| e.to_string())?;
    Ok(size)
}

/// The address forms every address option takes, for error messages.
const ADDRESS_FORMS: &str = "give PORT, localhost:PORT, HOST:PORT, IP:PORT or [IPv6]:PORT (e.g. 8080, localhost:8080, 0.0.0.0:8080)";

/// A socket address, to listen on or send to: `PORT` and `localhost:PORT` are
/// 127.0.0.1:PORT (the IPv4 loopback, no DNS); `IP:PORT` and `[IPv6]:PORT` are taken as
/// they are; any other `HOST:PORT` is resolved by the system resolver, its first IPv4
/// address preferred.
pub fn address(s: &str) -> Result<SocketAddr, String> {
    address_with(s, |host, port| {
        (host, port)
            .to_socket_addrs()
            .map(Iterator::collect)
            .map_err(|e| e.to_string())
    })
}

/// [`address`] with the name resolver given (tests resolve without DNS).
fn address_with(
    s: &str,
    resolve: impl FnOnce(&str, u16) -> Result<Vec<SocketAddr>, String>,
) -> Result<SocketAddr, String> {
    let s = s.trim();
    let loopback = |port| SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port);
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return port(s).map(loopback);
    }
    if let Ok(addr) = s.parse::<SocketAddr>() {
        return Ok(addr);
    }
    // A bare IP (`::1` too) or a name: the port is missing.
    let Some((host, port_text)) = s.rsplit_once(':').filter(|_| s.parse::<IpAddr>().is_err())
    else {
        return Err(format!("`{s}` has no port: {ADDRESS_FORMS}"));
    };
    if host.is_empty() || host.contains(':') || host.starts_with('[') {
        // `:8080`, or an IPv6 address without (or with broken) brackets.
        return Err(format!("`{s}` is not an address: {ADDRESS_FORMS}"));
    }
    let port = port(port_text).map_err(|e| format!("`{s}`: {e}"))?;
    if host.eq_ignore_ascii_case("localhost") {
        return Ok(loopback(port));
    }
    let found = resolve(host, port)
        .map_err(|e| format!("cannot resolve the host `{host}` of `{s}` ({e}): {ADDRESS_FORMS}"))?;
    found
        .iter()
        .find(|a| a.is_ipv4())
        .or(found.first())
        .copied()
        .ok_or_else(|| format!("the host `{host}` of `{s}` has no address: {ADDRESS_FORMS}"))
}

/// A port number, 0–65535.
fn port(s: &str) -> Result<u16, String> {
    s.parse()
        .map_err(|_| format!("the port must be a number from 0 to 65535, got `{s}`"))
}

/// An [`address`] to send to: port 0 is where nothing listens.
pub fn destination(s: &str) -> Result<SocketAddr, String> {
    let addr = address(s)?;
    if addr.port() == 0 {
        return Err(format!(
            "`{s}`: port 0 is not a destination (it picks a free port to listen on)"
        ));
    }
    Ok(addr)
}

/// Numbers per anim frame for a rig of `channels`: expression tracks before and after
/// the override rules, three bone rotations (4 each) and the gaze (2).
pub fn anim_values_per_frame(channels: usize) -> u64 {
    2 * channels as u64 + 3 * 4 + 2
}

/// The most frames an anim of `channels` may have under [`MAX_ANIM_VALUES`].
pub fn max_anim_frames(channels: usize) -> usize {
    (MAX_ANIM_VALUES / anim_values_per_frame(channels)) as usize
}

/// Refuses, before any work, an anim of `frames` frames over `channels` channels that
/// would exceed [`MAX_ANIM_VALUES`]; `what` says where the frames come from.
pub fn check_anim_size(frames: u64, channels: usize, what: &str) -> anyhow::Result<()> {
    let per = anim_values_per_frame(channels);
    let values = frames.saturating_mul(per);
    if values > MAX_ANIM_VALUES {
        anyhow::bail!(
            "{what} is {frames} frames × {per} values = {values} values, over the limit of \
             {MAX_ANIM_VALUES} (about {} MiB; {} frames for this rig): shorten it or lower the frame rate",
            (MAX_ANIM_VALUES * 4) >> 20,
            max_anim_frames(channels)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_reported_as_written() {
        // As f32 it is 0, as f64 Display three hundred zeros.
        let e = fps("1e-300").unwrap_err();
        assert!(e.ends_with("got 1e-300"), "{e}");
        let e = seconds("-1e300").unwrap_err();
        assert!(e.ends_with("got -1e300"), "{e}");
    }

    #[test]
    fn every_range_refuses_nan_inf_zero_negative_and_huge() {
        for bad in [
            "0", "-1", "nan", "NaN", "inf", "-inf", "1e9", "1e400", "", "x",
        ] {
            assert!(fps(bad).is_err(), "fps {bad}");
            assert!(seconds(bad).is_err(), "seconds {bad}");
            assert!(speed(bad).is_err(), "speed {bad}");
            assert!(jobs(bad).is_err(), "jobs {bad}");
            assert!(sample_rate(bad).is_err(), "rate {bad}");
            assert!(channels(bad).is_err(), "channels {bad}");
        }
        for bad in ["-0.1", "nan", "inf", "1.5"] {
            assert!(unit(bad).is_err(), "unit {bad}");
        }
        assert_eq!(fps("30"), Ok(30.0));
        assert_eq!(fps("1000"), Ok(1000.0));
        assert!(fps("1000.5").is_err());
        assert_eq!(seconds("86400"), Ok(86_400.0));
        assert!(seconds("86401").is_err());
        assert_eq!(jobs("256"), Ok(256));
        assert!(jobs("10000").is_err());
        assert!(frame_size("0x0").is_err());
        assert!(frame_size("100000x100000").is_err());
        assert!(frame_size("640x480").is_ok());
        assert!(fps("1e9").unwrap_err().contains("between 1 and 1000"));
    }

    #[test]
    fn addresses_take_a_port_localhost_a_host_or_an_ip() {
        let v4 = |a: [u8; 4], p| SocketAddr::from((a, p));
        assert_eq!(address("8080"), Ok(v4([127, 0, 0, 1], 8080)));
        assert_eq!(address("0"), Ok(v4([127, 0, 0, 1], 0)));
        assert_eq!(address("localhost:8080"), Ok(v4([127, 0, 0, 1], 8080)));
        assert_eq!(address("LocalHost:0"), Ok(v4([127, 0, 0, 1], 0)));
        assert_eq!(address("127.0.0.1:39539"), Ok(v4([127, 0, 0, 1], 39539)));
        assert_eq!(address("0.0.0.0:39540"), Ok(v4([0, 0, 0, 0], 39540)));
        assert_eq!(address("[::1]:8080"), Ok("[::1]:8080".parse().unwrap()));
        assert_eq!(address("[::]:0"), Ok("[::]:0".parse().unwrap()));
        // Through the system resolver (`localhost` would not reach it).
        assert!(address("no-such-host.invalid:80").is_err());
    }

    #[test]
    fn a_host_name_resolves_to_its_first_ipv4_address() {
        let v6: SocketAddr = "[fe80::1]:9000".parse().unwrap();
        let v4a = SocketAddr::from(([192, 168, 1, 20], 9000));
        let v4b = SocketAddr::from(([192, 168, 1, 21], 9000));
        let resolved = address_with("studio-pc:9000", |host, port| {
            assert_eq!((host, port), ("studio-pc", 9000));
            Ok(vec![v6, v4a, v4b])
        });
        assert_eq!(resolved, Ok(v4a));
        assert_eq!(
            address_with("v6only:9000", |_, _| Ok(vec![v6])),
            Ok(v6),
            "IPv6 when that is all there is"
        );
        let none = address_with("ghost:9000", |_, _| Ok(vec![])).unwrap_err();
        assert!(
            none.contains("ghost") && none.contains("no address"),
            "{none}"
        );
        let failed =
            address_with("ghost:9000", |_, _| Err("Name or service not known".into())).unwrap_err();
        assert!(
            failed.contains("cannot resolve the host `ghost`")
                && failed.contains("Name or service not known")
                && failed.contains("localhost:PORT"),
            "{failed}"
        );
        // `localhost` and a bare port never ask the resolver.
        let no_dns = |_: &str, _| -> Result<Vec<SocketAddr>, String> { panic!("DNS asked") };
        assert!(address_with("localhost:1", no_dns).is_ok());
        assert!(address_with("1", no_dns).is_ok());
    }

    #[test]
    fn bad_addresses_are_refused_naming_the_forms_taken() {
        for bad in [
            "",
            "x",
            "localhost",
            "127.0.0.1",
            "::1",
            "::1:8080",
            "[::1",
            "[::1]:",
            ":8080",
            "localhost:",
            "localhost:x",
            "localhost:65536",
            "70000",
            "-1",
            "host:port:1",
        ] {
            let e = address(bad).unwrap_err();
            assert!(e.contains("PORT") || e.contains("port"), "{bad:?} → {e}");
        }
        assert!(address("127.0.0.1").unwrap_err().contains("no port"));
        assert!(address("::1").unwrap_err().contains("no port"));
        assert!(address("70000").unwrap_err().contains("0 to 65535"));
        assert!(address("localhost").unwrap_err().contains("no port"));
        assert!(address("localhost").unwrap_err().contains("localhost:PORT"));
    }

    #[test]
    fn a_destination_needs_a_port() {
        assert_eq!(
            destination("39539"),
            Ok(SocketAddr::from(([127, 0, 0, 1], 39539)))
        );
        assert_eq!(
            destination("localhost:39539"),
            Ok(SocketAddr::from(([127, 0, 0, 1], 39539)))
        );
        assert!(destination("localhost:0").unwrap_err().contains("port 0"));
        assert!(destination("x").is_err());
    }

    #[test]
    fn threads_never_outnumber_inputs() {
        assert_eq!(threads_for(Some(200), 1), 1);
        assert_eq!(threads_for(Some(4), 10), 4);
        assert_eq!(threads_for(None, 0), 1);
    }

    #[test]
    fn a_day_at_1000_fps_is_refused_with_the_limit() {
        let e = check_anim_size(86_400 * 1000, 70, "--seconds 86400 at 1000 fps").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("134217728") && msg.contains("512 MiB"),
            "{msg}"
        );
        assert!(check_anim_size(60 * 60 * 60, 70, "an hour").is_ok());
    }
}
