//! omote-live in-process: the sources, sinks and the VMC listener with mocks and real
//! loopback UDP (127.0.0.1, port 0).

use std::io::Read;
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use omote_core::{Face, FaceConfig, FaceInputs, Quat, Rig, TrackedFace};
use omote_lipsync::{Profile, VowelFrame};
use omote_live::{
    AnimSink, AudioFileVoice, BlendNames, FaceSink, Frame, FrameSize, FrameSource, LatePolicy,
    ListenLimits, LiveError, MockSink, MockVoice, Overflow, Packet, PcmLipsync, PcmVoice,
    RawFrames, ReplayFrames, SampleFormat, ThreadedFrames, ThreadedVoice, VmcListener, VmcSink,
    VoiceSource, voice_buffer,
};
use omote_vmc::{BonePose, VmcFrameWriter, VmcRecorder};

// ---------------------------------------------------------------- helpers

use omote_testdata::buzz;

/// The times ((k + 0.5) / 100 s) of the voiced frames.
fn voiced_times(frames: &[VowelFrame]) -> Vec<f64> {
    frames
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.silent)
        .map(|(k, _)| (k as f64 + 0.5) / 100.0)
        .collect()
}

/// A `Read` that hands out at most `piece` bytes per call and is interrupted once.
struct Trickle<'a> {
    bytes: &'a [u8],
    piece: usize,
    interrupted: bool,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.interrupted {
            self.interrupted = true;
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let n = self.piece.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// A frame whose volume encodes its index, so tests can tell which frame they got.
fn numbered(k: u64) -> VowelFrame {
    VowelFrame {
        weights: [0.0; 6],
        volume: k as f32,
        silent: false,
    }
}

fn index_of(f: VowelFrame) -> u64 {
    f.volume as u64
}

/// Waits (up to 10 s) until `cond` holds.
fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(10), "never: {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn shared_data(rel: &str) -> Option<PathBuf> {
    omote_testdata::shared_data(rel)
}

// ---------------------------------------------------------------- frame sources

#[test]
fn frame_sizes_parse_or_say_why_not() {
    assert_eq!(
        "640x480".parse::<FrameSize>().unwrap(),
        FrameSize {
            width: 640,
            height: 480
        }
    );
    assert_eq!("2X1".parse::<FrameSize>().unwrap().rgb_bytes(), 6);
    for bad in ["640", "0x480", "ax480", "640x-1", ""] {
        let e = bad.parse::<FrameSize>().unwrap_err().to_string();
        assert!(e.contains(&format!("`{bad}`")), "{e}");
    }
}

#[test]
fn raw_frames_end_cleanly_or_name_the_truncated_frame() {
    let size = FrameSize {
        width: 2,
        height: 1,
    };
    // Two whole frames and two bytes of a third, one byte per read.
    let bytes: Vec<u8> = (1..=14).collect();
    let input = Trickle {
        bytes: &bytes,
        piece: 1,
        interrupted: false,
    };
    let mut frames = RawFrames::new(input, size, 30.0).unwrap();
    let f0 = frames.next_frame().unwrap().unwrap();
    assert_eq!((f0.index, f0.time_s), (0, 0.0));
    assert_eq!(f0.data.as_raw(), &[1, 2, 3, 4, 5, 6]);
    let f1 = frames.next_frame().unwrap().unwrap();
    assert_eq!((f1.index, f1.time_s), (1, 1.0 / 30.0));
    assert_eq!(f1.data.as_raw(), &[7, 8, 9, 10, 11, 12]);
    let e = frames.next_frame().unwrap_err();
    assert!(
        matches!(
            e,
            LiveError::TruncatedFrame {
                got: 2,
                expected: 6,
                ..
            }
        ),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("stdin frame 2") && msg.contains("mid-frame"),
        "{msg}"
    );
    assert!(
        frames.next_frame().unwrap().is_none(),
        "ended after the error"
    );

    // A clean end between frames; a name of our own.
    let mut frames = RawFrames::new(&bytes[..12], size, 10.0)
        .unwrap()
        .named("cam");
    assert_eq!(frames.frame_name(3), "cam frame 3");
    assert!(frames.next_frame().unwrap().is_some());
    assert!(frames.next_frame().unwrap().is_some());
    assert!(frames.next_frame().unwrap().is_none());
    let mut empty = RawFrames::new(&[][..], size, 10.0).unwrap();
    assert!(empty.next_frame().unwrap().is_none());

    // Sizes the tracker cannot take are refused up front.
    let huge = FrameSize {
        width: 20_000,
        height: 10,
    };
    assert!(RawFrames::new(&[][..], huge, 30.0).is_err());
}

/// `n` frames of nothing, as fast as the reader can go.
fn instant_frames(n: usize) -> ReplayFrames<u64> {
    ReplayFrames::at_fps(0..n as u64, 30.0)
}

#[test]
fn keep_all_delivers_every_frame_in_order() {
    let mut frames = ThreadedFrames::spawn(instant_frames(50), LatePolicy::KeepAll, "test");
    std::thread::sleep(Duration::from_millis(20)); // a slow consumer
    let mut got = Vec::new();
    while let Some(f) = frames.next_frame().unwrap() {
        assert_eq!(f.index, f.data);
        got.push(f.index);
        if got.len() % 10 == 0 {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    assert_eq!(got, (0..50).collect::<Vec<_>>());
    assert_eq!(frames.dropped(), 0);
}

#[test]
fn drop_late_replaces_the_waiting_frame_with_the_newest() {
    // The consumer is busy until the reader has read everything: only the newest frame
    // is left for it, the nine before it were dropped.
    let mut frames = ThreadedFrames::spawn(instant_frames(10), LatePolicy::DropLate, "test");
    eventually("the reader is done", || frames.reader_done());
    let f = frames.next_frame().unwrap().unwrap();
    assert_eq!((f.index, f.time_s), (9, 9.0 / 30.0));
    assert!(frames.next_frame().unwrap().is_none());
    assert_eq!(frames.dropped(), 9);

    // A source slower than nothing, a consumer slower than it: increasing indices with
    // gaps, the last frame always delivered, every frame either delivered or dropped.
    struct Paced(u64);
    impl FrameSource for Paced {
        type Frame = ();
        fn next_frame(&mut self) -> Result<Option<Frame<()>>, LiveError> {
            if self.0 == 40 {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(1));
            self.0 += 1;
            Ok(Some(Frame {
                index: self.0 - 1,
                time_s: 0.0,
                data: (),
            }))
        }
    }
    let mut frames = ThreadedFrames::spawn(Paced(0), LatePolicy::DropLate, "paced");
    let mut got = Vec::new();
    while let Some(f) = frames.next_frame().unwrap() {
        got.push(f.index);
        std::thread::sleep(Duration::from_millis(4));
    }
    assert!(got.windows(2).all(|w| w[0] < w[1]), "{got:?}");
    assert_eq!(*got.last().unwrap(), 39);
    assert_eq!(got.len() as u64 + frames.dropped(), 40);
}

#[test]
fn a_reader_error_arrives_after_the_frames_before_it() {
    struct Failing(u64);
    impl FrameSource for Failing {
        type Frame = ();
        fn next_frame(&mut self) -> Result<Option<Frame<()>>, LiveError> {
            if self.0 == 3 {
                return Err(LiveError::TruncatedFrame {
                    what: "stdin frame 3".into(),
                    width: 1,
                    height: 1,
                    got: 1,
                    expected: 3,
                });
            }
            self.0 += 1;
            Ok(Some(Frame {
                index: self.0 - 1,
                time_s: 0.0,
                data: (),
            }))
        }
    }
    for policy in [LatePolicy::KeepAll, LatePolicy::DropLate] {
        let mut frames = ThreadedFrames::spawn(Failing(0), policy, "failing");
        if policy == LatePolicy::DropLate {
            // The reader does not wait for us: the error comes after the newest frame.
            eventually("the reader is done", || frames.reader_done());
        }
        let mut last = None;
        let err = loop {
            match frames.next_frame() {
                Ok(Some(f)) => last = Some(f.index),
                Ok(None) => panic!("the error was lost ({policy:?})"),
                Err(e) => break e,
            }
        };
        assert_eq!(last, Some(2), "{policy:?}: the frame before the error");
        assert!(err.to_string().contains("stdin frame 3"));
        assert!(frames.next_frame().unwrap().is_none());
    }

    // A reader that panics is reported, not waited for.
    struct Panicking;
    impl FrameSource for Panicking {
        type Frame = ();
        fn next_frame(&mut self) -> Result<Option<Frame<()>>, LiveError> {
            panic!("reader bug (expected in this test)")
        }
    }
    let mut frames = ThreadedFrames::spawn(Panicking, LatePolicy::KeepAll, "the camera");
    let e = frames.next_frame().unwrap_err().to_string();
    assert!(e.contains("the camera"), "{e}");
}

#[test]
fn replayed_tracking_drives_a_face_into_sinks() {
    let rig = Arc::new(Rig::standard());
    let frames: Vec<(f64, Option<TrackedFace>)> = (0..6)
        .map(|k| (k as f64 * 0.05, Some(TrackedFace::default())))
        .collect();
    let mut source = ReplayFrames::new(frames);
    assert_eq!(source.remaining(), 6);
    let mut face = Face::new(rig.clone(), FaceConfig::default(), 3);
    let happy = rig.channel("happy").unwrap();
    face.layer_mut(Face::BASE).set(happy, 0.7);
    let mut sinks = (MockSink::new(), AnimSink::new(&rig, 20.0));
    let mut prev = 0.0;
    while let Some(f) = source.next_frame().unwrap() {
        let state = face.update((f.time_s - prev) as f32, &FaceInputs::default());
        prev = f.time_s;
        sinks.0.send(f.time_s, state).unwrap();
        sinks.1.send(f.time_s, state).unwrap();
    }
    let (mock, anim) = sinks;
    let times: Vec<f64> = mock.frames.iter().map(|f| f.time_s).collect();
    assert_eq!(times, (0..6).map(|k| k as f64 * 0.05).collect::<Vec<_>>());
    assert!((mock.frames[5].expressions[happy.index()] - 0.7).abs() < 1e-6);
    assert_eq!(anim.frames(), 6);
    let anim = anim.finish();
    assert_eq!(anim.expressions.get("happy").unwrap()[5], 0.7);

    // Optional sinks and lists of sinks are sinks too.
    let state = face.update(0.05, &FaceInputs::default()).clone();
    let mut none: Option<MockSink> = None;
    none.send(0.0, &state).unwrap();
    let mut many = vec![MockSink::new(), MockSink::new()];
    many.send(1.5, &state).unwrap();
    assert!(many.iter().all(|s| s.frames.len() == 1));
}

// ---------------------------------------------------------------- voice sources

#[test]
fn pcm_stereo_44k_buzz_is_voiced_in_the_right_span() {
    // 1.2 s at 44.1 kHz, stereo s16le: silence, a buzz from 0.3 to 0.9 s, silence.
    let bytes: Vec<u8> = buzz(44_100, 1.2, 0.3..0.9)
        .iter()
        .flat_map(|s| {
            let b = s.to_le_bytes();
            [b[0], b[1], b[0], b[1]]
        })
        .collect();
    let pipeline =
        PcmLipsync::new("stdin", SampleFormat::S16le, 2, 44_100, Profile::builtin()).unwrap();
    assert_eq!(pipeline.chunk_bytes(), 441 * 4);
    // Odd-sized reads: sample frames split across reads are carried over.
    let input = Trickle {
        bytes: &bytes,
        piece: 1001,
        interrupted: false,
    };
    let mut voice = PcmVoice::new(input, "stdin", pipeline);
    let mut frames = Vec::new();
    let mut calls = 0;
    while voice.next_frames(&mut frames).unwrap() {
        calls += 1;
    }
    assert!(calls > 50, "frames leave as they arrive, not at the end");
    assert!(!voice.next_frames(&mut frames).unwrap(), "stays ended");
    assert!(
        (118..=121).contains(&frames.len()),
        "one frame per 10 ms: {}",
        frames.len()
    );
    let voiced = voiced_times(&frames);
    let (first, last) = (voiced[0], *voiced.last().unwrap());
    assert!((first - 0.3).abs() < 0.05, "voice starts at {first}");
    assert!((last - 0.9).abs() < 0.06, "voice ends at {last}");
    for f in &frames {
        assert!(f.weights.iter().sum::<f32>() <= 1.0 + 1e-3);
    }

    // The same as f32le mono.
    let f32_bytes: Vec<u8> = buzz(44_100, 1.2, 0.3..0.9)
        .iter()
        .flat_map(|s| (f32::from(*s) / 32768.0).to_le_bytes())
        .collect();
    let pipeline =
        PcmLipsync::new("f32", SampleFormat::F32le, 1, 44_100, Profile::builtin()).unwrap();
    let mut voice = PcmVoice::new(&f32_bytes[..], "f32", pipeline);
    let mut mono = Vec::new();
    while voice.next_frames(&mut mono).unwrap() {}
    assert_eq!(mono.len(), frames.len());
    let v = voiced_times(&mono);
    assert!((v[0] - first).abs() < 0.02 && (v.last().unwrap() - last).abs() < 0.02);
}

#[test]
fn pcm_setup_errors_name_the_stream() {
    let e = PcmLipsync::new(
        "mic.pcm",
        SampleFormat::S16le,
        0,
        16_000,
        Profile::builtin(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("mic.pcm") && e.contains("channel"), "{e}");
    let e = PcmLipsync::new("mic.pcm", SampleFormat::S16le, 1, 12, Profile::builtin())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("mic.pcm") && e.contains("12"), "{e}");
    let missing = std::env::temp_dir().join("omote-live-no-such-voice.raw");
    let e = PcmVoice::open(&missing, SampleFormat::S16le, 1, 16_000, Profile::builtin())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("omote-live-no-such-voice.raw"), "{e}");
}

#[test]
fn voice_buffer_waits_for_a_frame_then_takes_the_newest() {
    let (feed, buffer) = voice_buffer(8, Overflow::DropOldest);
    assert_eq!(buffer.frame_at(0, Duration::ZERO), None, "nothing yet");
    feed.push(&(0..5).map(numbered).collect::<Vec<_>>());
    assert_eq!(buffer.frame_at(2, Duration::ZERO).map(index_of), Some(2));
    // Frame 10 has not arrived: after the wait, the newest there is.
    let t0 = Instant::now();
    let got = buffer.frame_at(10, Duration::from_millis(30));
    assert!(t0.elapsed() >= Duration::from_millis(30));
    assert_eq!(got.map(index_of), Some(4));
    // Older frames were dropped (the newest is kept): an earlier request gets that.
    assert_eq!(buffer.len(), 1);
    assert_eq!(buffer.frame_at(3, Duration::ZERO).map(index_of), Some(4));

    // A frame that arrives during the wait is returned as it arrives.
    let pusher = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        feed.push(&(5..8).map(numbered).collect::<Vec<_>>());
        feed
    });
    let t0 = Instant::now();
    assert_eq!(
        buffer.frame_at(6, Duration::from_secs(20)).map(index_of),
        Some(6)
    );
    assert!(
        t0.elapsed() < Duration::from_secs(10),
        "did not wait it out"
    );
    // After the end: no waiting, the newest frame.
    let feed = pusher.join().unwrap();
    feed.end(Ok(()));
    let t0 = Instant::now();
    assert_eq!(
        buffer.frame_at(100, Duration::from_secs(20)).map(index_of),
        Some(7)
    );
    assert!(t0.elapsed() < Duration::from_secs(10));
    assert!(buffer.is_ended());
    assert!(matches!(buffer.take_end(), Some(Ok(()))));
    // Times map to frames at 100 per second.
    assert_eq!(omote_live::voice_frame_index(0.0999), 9);
    assert_eq!(omote_live::voice_frame_index(-1.0), 0);
    assert_eq!(omote_live::voice_frame_index(f64::NAN), 0);
}

#[test]
fn voice_buffer_stays_bounded_over_a_long_session() {
    // A microphone: the feed never stalls, the oldest frames go.
    let (feed, buffer) = voice_buffer(50, Overflow::DropOldest);
    for k in 0..100_000 {
        feed.push(&[numbered(k)]);
        assert!(buffer.len() <= 50);
        if k % 1000 == 999 {
            assert_eq!(buffer.frame_at(k, Duration::ZERO).map(index_of), Some(k));
        }
    }
    assert_eq!(buffer.received(), 100_000);
    assert!(buffer.len() <= 50 && buffer.capacity() == 50);
    assert!(buffer.overflowed() > 90_000);

    // A file analysed far ahead, on a thread: the feed waits for the consumer, so
    // nothing is lost however long the voice, and the buffer never holds more than 16.
    struct Numbers(u64);
    impl VoiceSource for Numbers {
        fn next_frames(&mut self, out: &mut Vec<VowelFrame>) -> Result<bool, LiveError> {
            for _ in 0..7 {
                if self.0 == 20_000 {
                    return Ok(false);
                }
                out.push(numbered(self.0));
                self.0 += 1;
            }
            Ok(true)
        }
    }
    let voice = ThreadedVoice::spawn(Numbers(0), 16, Overflow::Wait, "numbers");
    for k in (0..20_000u64).step_by(3) {
        // A 30 fps video frame k asks for the lip sync frame of its time.
        let got = voice
            .frame_at_time(k as f64 / 100.0 + 0.001, Duration::from_secs(20))
            .map(index_of);
        assert_eq!(got, Some(k));
        assert!(voice.buffer().len() <= 16);
    }
    eventually("the voice ends", || voice.is_finished());
    assert_eq!(voice.buffer().overflowed(), 0);
    voice.finish().unwrap();
}

#[test]
fn threaded_voice_reports_its_error_at_the_end() {
    let frames: Vec<VowelFrame> = (0..30).map(numbered).collect();
    let failing = MockVoice::new(frames.clone())
        .chunked(4)
        .failing_with(LiveError::Read {
            what: "mic.pcm".into(),
            source: std::io::ErrorKind::BrokenPipe.into(),
        });
    let voice = ThreadedVoice::spawn(failing, 100, Overflow::Wait, "mic.pcm");
    eventually("the voice ends", || voice.is_finished());
    assert_eq!(
        voice.frame_at_time(0.295, Duration::ZERO).map(index_of),
        Some(29)
    );
    let e = voice.finish().unwrap_err().to_string();
    assert!(e.contains("mic.pcm"), "{e}");

    // A voice still going (a live pipe) is not waited for.
    struct Forever;
    impl VoiceSource for Forever {
        fn next_frames(&mut self, out: &mut Vec<VowelFrame>) -> Result<bool, LiveError> {
            std::thread::sleep(Duration::from_millis(5));
            out.push(VowelFrame::SILENT);
            Ok(true)
        }
    }
    let voice = ThreadedVoice::spawn(Forever, 10, Overflow::DropOldest, "mic");
    assert!(!voice.is_finished());
    voice.finish().unwrap();
}

#[test]
fn an_audio_file_plays_as_if_live() {
    // 0.6 s at 16 kHz with a buzz from 0.2 to 0.45 s, as a WAV file.
    let samples: Vec<f32> = buzz(16_000, 0.6, 0.2..0.45)
        .iter()
        .map(|s| f32::from(*s) / 32768.0)
        .collect();
    let mut live = AudioFileVoice::from_samples(samples.clone(), Profile::builtin());
    assert!((live.duration_s() - 0.6).abs() < 1e-9);
    // In real time: 0.1 s of it takes about 0.1 s (at least; the machine may be slow).
    let t0 = Instant::now();
    let mut frames = Vec::new();
    while frames.len() < 10 {
        assert!(live.next_frames(&mut frames).unwrap());
    }
    assert!(
        t0.elapsed() >= Duration::from_millis(90),
        "{:?}",
        t0.elapsed()
    );
    // The rest unpaced, on a thread, through the bounded buffer.
    let rest = AudioFileVoice::from_samples(samples, Profile::builtin()).with_speed(f64::INFINITY);
    let voice = ThreadedVoice::spawn(rest, ThreadedVoice::DEFAULT_CAPACITY, Overflow::Wait, "wav");
    let got: Vec<VowelFrame> = (0..60)
        .map(|k| voice.frame_at(k, Duration::from_secs(20)).expect("a frame"))
        .collect();
    let voiced = voiced_times(&got);
    assert!((voiced[0] - 0.2).abs() < 0.05, "starts at {}", voiced[0]);
    assert!((voiced.last().unwrap() - 0.45).abs() < 0.06);
    // The paced frames are the same frames.
    assert_eq!(&got[..10], &frames[..10]);
}

#[test]
fn a_real_recording_plays_as_if_live() {
    let Some(wav) = shared_data("speech/ja_ojt_001.wav") else {
        return;
    };
    let voice = AudioFileVoice::open(&wav, Profile::builtin())
        .unwrap()
        .with_speed(f64::INFINITY);
    let mut voice = voice;
    let mut frames = Vec::new();
    while voice.next_frames(&mut frames).unwrap() {}
    let labels = std::fs::read_to_string(wav.with_extension("lab.tsv")).unwrap();
    let start: f64 = labels
        .lines()
        .skip(1)
        .find(|l| !l.contains("\tS\t"))
        .and_then(|l| l.split('\t').next())
        .unwrap()
        .parse()
        .unwrap();
    let voiced = voiced_times(&frames);
    assert!(
        (voiced[0] - start).abs() < 0.05,
        "voice at {}, labels at {start}",
        voiced[0]
    );
    let e = AudioFileVoice::open(&wav.with_extension("nope"), Profile::builtin())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("ja_ojt_001.nope"), "{e}");
    // Cut short, it plays what is there and says so.
    let whole = std::fs::read(&wav).unwrap();
    let cut = std::env::temp_dir().join(format!("omote-live-cut-{}.wav", std::process::id()));
    std::fs::write(&cut, &whole[..whole.len() - 5000]).unwrap();
    let (_, warning) = AudioFileVoice::open_warned(&cut, Profile::builtin()).unwrap();
    let (_, none) = AudioFileVoice::open_warned(&wav, Profile::builtin()).unwrap();
    std::fs::remove_file(&cut).unwrap();
    assert!(none.is_none());
    let warning = warning.expect("a warning");
    assert!(warning.contains("ends 5000 bytes early"), "{warning}");
}

// ---------------------------------------------------------------- VMC

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

fn limits(idle_ms: u64) -> ListenLimits {
    ListenLimits {
        max: Some(Duration::from_secs(20)),
        idle: Duration::from_millis(idle_ms),
    }
}

#[test]
fn vmc_sink_to_listener_round_trips_a_face() {
    let mut listener = VmcListener::bind(loopback()).unwrap();
    listener.record(VmcRecorder::new(100.0));
    let addr = listener.local_addr();
    assert_ne!(addr.port(), 0);

    let rig = Arc::new(Rig::standard());
    let mut face = Face::new(rig.clone(), FaceConfig::default(), 5);
    let happy = rig.channel("happy").unwrap();
    let head = Quat::from_rotation_y(0.3);
    let mut sink = VmcSink::for_rig(addr, &rig, BlendNames::Vrm0).unwrap();
    assert_eq!(sink.to(), addr);
    let mut sent = Vec::new();
    for k in 0..20 {
        face.layer_mut(Face::BASE).set(happy, k as f32 / 20.0);
        let inputs = FaceInputs {
            head,
            ..FaceInputs::default()
        };
        let state = face.update(0.01, &inputs);
        sink.send(k as f64 / 100.0, state).unwrap();
        sent.push(state.weight(happy));
        std::thread::sleep(Duration::from_millis(1));
    }
    // A packet that is not OSC is counted and reported, not fatal.
    let other = UdpSocket::bind(loopback()).unwrap();
    other.send_to(b"not osc at all", addr).unwrap();

    let mut bad = Vec::new();
    let stats = listener
        .run(limits(300), |n, e, skipped| {
            bad.push((n, e.to_string(), skipped))
        })
        .unwrap();
    // The standard rig's 70 channels go in packets of at most 1472 bytes: 3 a frame.
    assert_eq!(stats.packets, 20 * 3 + 1);
    assert_eq!(stats.malformed, 1);
    assert_eq!(stats.skipped_messages, 0);
    assert_eq!(bad.len(), 1);
    assert_eq!((bad[0].0, bad[0].2), (61, None));
    // Joy (VRM 0.x) on the wire, happy again in the recording.
    assert_eq!(listener.receiver().blend("Joy"), sent.last().copied());
    let rec = listener.take_recorder().unwrap();
    assert_eq!(
        rec.frames(),
        20,
        "one frame per 10 ms of the sender's clock"
    );
    let anim = rec.finish();
    let back = anim.expressions.get("happy").unwrap();
    for (a, b) in sent.iter().zip(back) {
        assert!((a - b).abs() < 1e-6, "{a} vs {b}");
    }
    // The head through Unity's axes and back.
    let got = Quat::from_array(anim.head[19]);
    let want = face.state().head;
    assert!(got.dot(want).abs() > 1.0 - 1e-5, "{got} vs {want}");
}

#[test]
fn vmc_sink_sends_mouth_weights_and_ignores_a_missing_marionette() {
    let mut listener = VmcListener::bind(loopback()).unwrap();
    let mut sink = VmcSink::new(
        listener.local_addr(),
        ["aa", "ih", "ou", "ee", "oh"],
        BlendNames::Vrm1,
    )
    .unwrap();
    sink.send_weights(0.0, &[0.5, 0.0, 0.25, 0.0, 0.0], &BonePose::default())
        .unwrap();
    let got = listener.recv(Duration::from_secs(20)).unwrap();
    assert_eq!(
        got,
        Some(Packet::Applied(omote_vmc::ApplyReport {
            applies: 1,
            // T, five values, Apply (OK says nothing it keeps).
            used: 7,
            ..Default::default()
        }))
    );
    assert_eq!(listener.receiver().blend("aa"), Some(0.5));
    assert_eq!(listener.receiver().blend("ou"), Some(0.25));
    assert!(listener.receiver().bone("Head").is_none());
    // Nothing more: a timeout is not an error.
    assert_eq!(listener.recv(Duration::from_millis(5)).unwrap(), None);

    // Nobody listening any more: sending goes on without errors.
    let gone = listener.local_addr();
    drop(listener);
    let mut sink = VmcSink::new(gone, ["aa"], BlendNames::Vrm1).unwrap();
    for k in 0..5 {
        sink.send_weights(k as f32, &[0.1], &BonePose::default())
            .unwrap();
    }
}

#[test]
fn vmc_listener_names_a_busy_address() {
    let busy = UdpSocket::bind(loopback()).unwrap();
    let addr = busy.local_addr().unwrap();
    let e = VmcListener::bind(addr).err().unwrap().to_string();
    assert!(e.contains(&addr.to_string()), "{e}");
    assert!(e.contains("(is another app using it?)"), "{e}");
    // An address this machine does not have is not a busy one: no such hint.
    let foreign: std::net::SocketAddr = "192.0.2.1:39539".parse().unwrap();
    if let Some(e) = VmcListener::bind(foreign).err().map(|e| e.to_string()) {
        assert!(
            e.contains("192.0.2.1:39539") && !e.contains("another app"),
            "{e}"
        );
    }
}

#[test]
fn the_recorder_is_bounded_against_a_hostile_performer_clock() {
    let mut listener = VmcListener::bind(loopback()).unwrap();
    listener.record(VmcRecorder::new(60.0));
    let addr = listener.local_addr();
    let socket = UdpSocket::bind(loopback()).unwrap();
    let mut writer = VmcFrameWriter::new(["aa"], BlendNames::Vrm1);
    // A steady second, then /VMC/Ext/T 1e30 (and more) from a hostile performer.
    let steady = (0..10).map(|k| k as f32 / 60.0);
    for t in steady.chain([1e30f32, 2e30, f32::MAX]) {
        // One channel: one packet a frame.
        let packet = writer
            .write(t, &[0.5], &BonePose::default())
            .next()
            .unwrap();
        socket.send_to(packet, addr).unwrap();
    }
    let stats = listener.run(limits(300), |_, _, _| {}).unwrap();
    assert_eq!(stats.packets, 13);
    let rec = listener.take_recorder().unwrap();
    assert!(rec.frames() >= 10);
    assert!(
        rec.frames() <= 10 + 3 * VmcRecorder::MAX_FILL_FRAMES,
        "{} frames",
        rec.frames()
    );
    assert!(rec.skipped_frames() > 1_000_000);
    assert!(rec.finish().validate().is_ok());
}
