//! Issue 37, voice files and long audio: what a voice file may be (a regular file; a
//! FIFO or a device is refused by name, never read), long files analysed in a stream,
//! and messages about inputs that parse but cannot be right.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::{omote, scratch};

mod support;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Waits for `child` at most `limit`; a child still running then is killed and the test
/// fails (it hung on its input).
fn finish_within(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("omote still ran after {limit:?}: it hung on its input");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn spawn(args: &[&std::ffi::OsStr]) -> Child {
    omote()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn mkfifo(path: &Path) -> bool {
    let made = Command::new("mkfifo").arg(path).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return false;
    }
    true
}

/// A FIFO given as a voice file (to `lipsync`, `lipsync plot`, `live --audio`) is refused
/// as "not a regular file", naming it, at once: no hang waiting for a writer.
#[cfg(unix)]
#[test]
fn a_fifo_as_a_voice_file_is_refused_by_name() {
    let dir = scratch("fifo");
    let fifo = dir.join("voice.wav");
    if !mkfifo(&fifo) {
        return;
    }
    let out_png = dir.join("plot.png");
    let cases: Vec<Vec<&std::ffi::OsStr>> = vec![
        vec!["lipsync".as_ref(), fifo.as_ref()],
        vec![
            "lipsync".as_ref(),
            "plot".as_ref(),
            fifo.as_ref(),
            "-o".as_ref(),
            out_png.as_ref(),
        ],
    ];
    for args in cases {
        let o = finish_within(spawn(&args), Duration::from_secs(60));
        let e = stderr(&o);
        assert!(!o.status.success(), "{args:?}: {e}");
        assert!(
            e.contains("not a regular file (it is a FIFO)"),
            "{args:?}: {e}"
        );
        assert!(e.contains(&fifo.display().to_string()), "{args:?}: {e}");
        assert!(!e.contains("panicked"), "{e}");
    }
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    finish_within(spawn(args), Duration::from_secs(300))
}

/// A 10.5-minute voice (a buzz with pauses, 16 kHz): past `omote lipsync`'s whole-file
/// length, so it is analysed as a stream.
fn long_voice(path: &Path) -> Vec<f32> {
    let rate = 16_000u32;
    let samples = omote_testdata::repeated_buzz(rate, 10.5 * 60.0, 3.0);
    std::fs::write(path, omote_testdata::wav16(&samples, rate, 1)).unwrap();
    samples.iter().map(|&s| f32::from(s) / 32_768.0).collect()
}

/// A file longer than the whole-file limit is analysed as a stream (memory flat in its
/// length: `tools/lipsync/long-audio-rss.py` measures it) and its result is, byte for
/// byte, the streaming analyser's track of the same samples, at 100 fps and resampled,
/// in JSON and TSV and Rhubarb's two formats; the summary counts its folder's speaker.
#[test]
fn a_long_file_is_analysed_as_a_stream_with_the_streaming_result() {
    use omote_lipsync::{Profile, StreamAnalyser, export};
    let dir = scratch("long");
    let wav = dir.join("long.wav");
    let samples = long_voice(&wav);
    let track = StreamAnalyser::new(Profile::builtin()).analyse_clip(&samples, 160);
    let name = wav.display().to_string();
    for (format, fps, ext) in [
        ("json", "100", "lipsync.json"),
        ("json", "30", "lipsync.json"),
        ("tsv", "60", "lipsync.tsv"),
        ("rhubarb-json", "100", "rhubarb.json"),
        ("rhubarb-tsv", "24", "rhubarb.tsv"),
        ("rhubarb-xml", "30", "rhubarb.xml"),
    ] {
        let out = dir.join(format!("out-{format}-{fps}"));
        let o = run(&[
            "lipsync".as_ref(),
            wav.as_ref(),
            "--out".as_ref(),
            out.as_ref(),
            "--format".as_ref(),
            format.as_ref(),
            "--fps".as_ref(),
            fps.as_ref(),
        ]);
        let e = stderr(&o);
        assert!(o.status.success(), "{e}");
        assert!(e.contains("analysed as a stream"), "{e}");
        assert!(
            e.contains("1 of 1 files analysed, 0 failed; 1 speaker "),
            "{e}"
        );
        let written = out.join(format!("long.{ext}"));
        assert!(e.contains(&format!("; wrote {}", written.display())), "{e}");
        let got = std::fs::read_to_string(&written).unwrap();
        let t = track.resampled(fps.parse().unwrap());
        let want = match format {
            "json" => export::to_json(&t, &name),
            "tsv" => export::to_tsv(&t),
            "rhubarb-json" => export::to_rhubarb_json(&t, &name),
            "rhubarb-xml" => export::to_rhubarb_xml(&t, &name),
            _ => export::to_rhubarb_tsv(&t),
        };
        assert_eq!(got.len(), want.len(), "{format} at {fps} fps");
        assert!(got == want, "{format} at {fps} fps differs");
    }
}

/// Samples that are not numbers (a float file from a broken tool) are read as silence and
/// counted in one warning, in a short file and in a long one read as a stream.
#[test]
fn samples_that_are_not_numbers_are_warned_about_in_short_and_long_files() {
    let dir = scratch("nan");
    let rate = 16_000u32;
    let cycle: Vec<f32> = omote_testdata::buzz(rate, 3.0, 0.4..2.2)
        .iter()
        .map(|&s| f32::from(s) / 32_768.0)
        .collect();
    for (name, seconds) in [("short.wav", 3.0), ("long.wav", 10.5 * 60.0)] {
        let n = (seconds * f64::from(rate)) as usize;
        let mut samples: Vec<f32> = cycle.iter().copied().cycle().take(n).collect();
        for k in [1000, n / 2, n - 10] {
            samples[k] = f32::NAN;
        }
        let wav = dir.join(name);
        std::fs::write(&wav, omote_testdata::wav_f32(&samples, rate)).unwrap();
        let out = dir.join(format!("out-{name}"));
        let o = run(&[
            "lipsync".as_ref(),
            wav.as_ref(),
            "--out".as_ref(),
            out.as_ref(),
        ]);
        let e = stderr(&o);
        assert!(o.status.success(), "{e}");
        let warning = format!(
            "warning: {}: 3 samples are not numbers (NaN or infinite); read as silence",
            wav.display()
        );
        assert_eq!(e.matches(&warning).count(), 1, "{name}: {e}");
        assert_eq!(
            e.contains("analysed as a stream"),
            name == "long.wav",
            "{e}"
        );
    }
}

/// A WAV cut short warns how many bytes are missing; one with no samples is an error.
#[test]
fn a_truncated_wav_warns_and_an_empty_one_fails() {
    let dir = scratch("truncated");
    let mut bytes = omote_testdata::wav16(&omote_testdata::buzz(16_000, 1.0, 0.2..0.8), 16_000, 1);
    bytes.truncate(bytes.len() - 1000);
    let cut = dir.join("cut.wav");
    std::fs::write(&cut, &bytes).unwrap();
    // The batch and the plot read it with the same warning.
    let png = dir.join("cut.png");
    let plot: [&std::ffi::OsStr; 5] = [
        "lipsync".as_ref(),
        "plot".as_ref(),
        cut.as_ref(),
        "-o".as_ref(),
        png.as_ref(),
    ];
    for args in [&["lipsync".as_ref(), cut.as_ref()][..], &plot[..]] {
        let o = run(args);
        let e = stderr(&o);
        assert!(o.status.success(), "{e}");
        assert!(e.contains("cut.wav: ends 1000 bytes early"), "{e}");
    }
    // A scene's line (what `speak` writes, what `bake` reads) warns too, naming the line.
    let speak_out = dir.join("speak");
    let o = run(&[
        "speak".as_ref(),
        cut.as_ref(),
        "--out".as_ref(),
        speak_out.as_ref(),
    ]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(
        e.contains("warning: ") && e.contains("cut.wav: ends 1000 bytes early"),
        "{e}"
    );
    let scene = dir.join("scene.toml");
    std::fs::write(
        &scene,
        "[[character]]\nid = \"a\"\n  [[character.line]]\n  t = 0.5\n  audio = \"cut.wav\"\n",
    )
    .unwrap();
    let bake_out = dir.join("bake");
    let o = run(&[
        "bake".as_ref(),
        scene.as_ref(),
        "--out".as_ref(),
        bake_out.as_ref(),
    ]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(
        e.contains("scene.toml:5: character[0].line[0].audio: ")
            && e.contains("cut.wav: ends 1000 bytes early"),
        "{e}"
    );
    assert!(bake_out.join("a.anim.json").is_file());
    let empty = dir.join("empty.wav");
    std::fs::write(&empty, omote_testdata::wav16(&[], 16_000, 1)).unwrap();
    let o = run(&[
        "lipsync".as_ref(),
        empty.as_ref(),
        "--speaker".as_ref(),
        "file".as_ref(),
    ]);
    let e = stderr(&o);
    assert!(!o.status.success(), "{e}");
    assert!(e.contains("empty.wav: no audio samples"), "{e}");
}

/// One recording given for all six vowels is refused, naming two of them.
#[test]
fn a_calibration_from_one_sound_for_every_vowel_is_refused() {
    let dir = scratch("calibrate");
    let wav = dir.join("aaa.wav");
    std::fs::write(
        &wav,
        omote_testdata::wav16(&omote_testdata::buzz(16_000, 2.0, 0.1..1.9), 16_000, 1),
    )
    .unwrap();
    let mut args: Vec<&std::ffi::OsStr> = vec!["lipsync".as_ref(), "calibrate".as_ref()];
    for v in ["--a", "--i", "--u", "--e", "--o", "--n"] {
        args.push(v.as_ref());
        args.push(wav.as_ref());
    }
    let out = dir.join("p.json");
    args.extend(["-o".as_ref(), out.as_os_str()]);
    let o = run(&args);
    let e = stderr(&o);
    assert!(!o.status.success(), "{e}");
    assert!(e.contains("(--a) and"), "{e}");
    assert!(e.contains("(--i) are the same sound"), "{e}");
    assert!(!out.exists());
}

/// `eval`: an empty manifest, and a label before its clip, are errors naming the file.
#[test]
fn eval_refuses_an_empty_manifest_and_labels_before_the_clip() {
    let dir = scratch("eval");
    std::fs::write(dir.join("manifest.tsv"), "clip\tlanguage\tsource\n").unwrap();
    let o = run(&["lipsync".as_ref(), "eval".as_ref(), dir.as_ref()]);
    let e = stderr(&o);
    assert!(!o.status.success(), "{e}");
    assert!(
        e.contains("manifest.tsv: the manifest lists no clips"),
        "{e}"
    );
    std::fs::write(
        dir.join("manifest.tsv"),
        "clip\tlanguage\tsource\nc1\ten\tx\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("c1.wav"),
        omote_testdata::wav16(&omote_testdata::buzz(16_000, 1.0, 0.2..0.8), 16_000, 1),
    )
    .unwrap();
    std::fs::write(
        dir.join("c1.lab.tsv"),
        "0.0\t0.2\tS\tsil\n-2.0\t0.5\tA\ta\n",
    )
    .unwrap();
    let o = run(&["lipsync".as_ref(), "eval".as_ref(), dir.as_ref()]);
    let e = stderr(&o);
    assert!(!o.status.success(), "{e}");
    assert!(e.contains("c1.lab.tsv:2:"), "{e}");
    assert!(e.contains("before the clip"), "{e}");
}

fn replay_line(t: &str, landmarks: usize) -> String {
    let lm = vec!["[0.5,0.5,0.0]"; landmarks].join(",");
    format!(
        "{{\"t\":{t},\"width\":640,\"height\":480,\"faces\":[{{\"landmarks\":[{lm}],\"blendshapes\":{{\"jawOpen\":0.5}}}}]}}\n"
    )
}

/// A replay with an absurd step (1e30 s, 1e12 s) or a frame of 10 landmarks is refused
/// naming the file and the frame: no panic text, no wait for ever, a failing exit.
#[test]
fn a_replay_with_absurd_times_or_landmarks_is_refused_by_frame() {
    let dir = scratch("replay");
    let cases = [
        (
            format!("{}{}", replay_line("0", 478), replay_line("1e30", 478)),
            "frame 2: time 1e30 s is 1e30 s after the frame before",
        ),
        (
            format!(
                "{}{}{}",
                replay_line("0", 478),
                replay_line("0.033", 478),
                replay_line("1e12", 478)
            ),
            "frame 3: time 1e12 s",
        ),
        (
            format!("{}{}", replay_line("0", 478), replay_line("0.033", 10)),
            "line 2: faces[0]: 10 landmarks, not MediaPipe's 478",
        ),
    ];
    for (i, (text, needle)) in cases.iter().enumerate() {
        let take = dir.join(format!("take{i}.jsonl"));
        std::fs::write(&take, text).unwrap();
        let o = finish_within(
            spawn(&[
                "live".as_ref(),
                "--replay".as_ref(),
                take.as_ref(),
                "--seconds".as_ref(),
                "2".as_ref(),
            ]),
            Duration::from_secs(60),
        );
        let e = stderr(&o);
        assert!(!o.status.success(), "{e}");
        assert!(e.contains(&take.display().to_string()), "{e}");
        assert!(e.contains(needle), "{needle}: {e}");
        assert!(!e.contains("panicked"), "{e}");
    }
}
