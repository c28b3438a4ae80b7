//! The C example (`examples/c/face.c`), compiled with the system C compiler against the
//! library and the checked-in header, gives bit for bit the frames the Rust API gives
//! for the same calls; the C hostile-input program (`tests/c/hostile.c`) gets a status
//! and a message for every misuse, and never crashes.

use std::path::{Path, PathBuf};
use std::process::Command;

use omote_embed::{Avatar, AvatarSource, Character, analyse_voice};

const RATE: usize = 48_000;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The folder holding this build's `libomote_ffi`: `deps/`, beside the test binary
/// (`cargo test` builds the library there and does not copy it up a level).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().to_path_buf()
}

/// A compiled C program, to run against the library its rpath names (this build's
/// `deps/`). `cargo test` puts `target/debug` on `LD_LIBRARY_PATH`, which outranks the
/// rpath, and `cargo build -p omote-ffi` (the C# tests) leaves an older
/// `libomote_ffi` there: the program would run last build's library.
fn c_program(exe: &Path) -> Command {
    let mut cmd = Command::new(exe);
    cmd.env_remove("LD_LIBRARY_PATH");
    cmd
}

/// Compiles `source` against the library; `None` (with a message) when there is no C
/// compiler and CI is not set.
fn compile(source: &Path, name: &str) -> Option<PathBuf> {
    let lib = lib_dir();
    assert!(
        lib.join("libomote_ffi.so").exists() || lib.join("libomote_ffi.dylib").exists(),
        "no libomote_ffi in {}",
        lib.display()
    );
    let out = std::env::temp_dir().join(format!("omote-{name}-{}", std::process::id()));
    let status = Command::new("cc")
        .args([
            "-std=c11",
            "-O1",
            "-ffp-contract=off",
            "-Wall",
            "-Wextra",
            "-Werror",
        ])
        .arg("-I")
        .arg(root().join("include"))
        .arg(source)
        .arg("-L")
        .arg(&lib)
        .arg("-lomote_ffi")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&out)
        .status();
    match status {
        Ok(s) => {
            assert!(s.success(), "cc failed on {}", source.display());
            Some(out)
        }
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipping: no C compiler (`cc`): {e}");
            None
        }
        Err(e) => panic!("no C compiler (`cc`) under CI: {e}"),
    }
}

/// `examples/c/face.c`'s line, made the same way.
fn line() -> Vec<f32> {
    let mut state: u32 = 12345;
    (0..RATE * 3 / 2)
        .map(|i| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let noise = ((state >> 16) & 0x7fff) as f32 / 32768.0 - 0.5;
            let buzz = (i % 240) as f32 / 240.0 - 0.5;
            let voiced = (RATE / 4..RATE * 5 / 4).contains(&i);
            if voiced {
                0.5 * buzz + 0.1 * noise
            } else {
                0.001 * noise
            }
        })
        .collect()
}

/// `examples/c/face.c`'s output for a line (`samples` at `rate`), made through the Rust
/// embedding API.
fn rust_frames(samples: &[f32], rate: f64) -> String {
    let avatar = Avatar::load(&AvatarSource::Builtin).unwrap();
    let mut face = Character::from_avatar(&avatar, 7).unwrap();
    let track = analyse_voice(samples, rate).unwrap();
    face.set_expression_named("happy", 0.4).unwrap();
    face.set_gaze_target(omote_core::Vec3::new(0.3, -0.1, 1.0))
        .unwrap();
    let happy = face.channel("happy").unwrap();
    let mut out = String::new();
    for frame in 0..600 {
        if frame == 60 {
            face.say_analysis(&track, &[(happy, 0.3)]).unwrap();
        }
        face.update(1.0 / 60.0);
        out += &frame.to_string();
        let rotations = face.rotations();
        for v in face
            .weights()
            .iter()
            .chain(face.input_weights())
            .chain(&rotations)
        {
            out += &format!(" {:08x}", v.to_bits());
        }
        let (mut blinks, mut saccades) = (0, 0);
        for e in face.events().iter() {
            match e {
                omote_core::FaceEvent::Blink(_) => blinks += 1,
                omote_core::FaceEvent::Saccade(_) => saccades += 1,
            }
        }
        let l = face.line_events();
        out += &format!(
            " | {blinks} {saccades} {} {}\n",
            u32::from(l.voice_started),
            u32::from(l.handed_over)
        );
    }
    out
}

#[test]
fn the_c_example_gives_the_rust_apis_frames_bit_for_bit() {
    let Some(exe) = compile(&root().join("examples/c/face.c"), "face") else {
        return;
    };
    let run = c_program(&exe).output().unwrap();
    let _ = std::fs::remove_file(&exe);
    assert!(
        run.status.success(),
        "face failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let c = String::from_utf8(run.stdout).unwrap();
    let rust = rust_frames(&line(), RATE as f64);
    assert_eq!(c.lines().count(), 600);
    // The line is heard: the mouth moves, a voice starts and hands over, blinks happen.
    assert!(
        c.contains(" 1 0\n") && c.contains(" 0 1\n"),
        "voice events missing"
    );
    for (k, (a, b)) in c.lines().zip(rust.lines()).enumerate() {
        assert_eq!(a, b, "frame {k} differs between C and Rust");
    }
    assert_eq!(c, rust);
    // The summary for a person, on stderr: the line was heard (a vowel opened wide).
    let summary = String::from_utf8_lossy(&run.stderr);
    assert!(
        summary.starts_with("face: 600 frames at 60 fps")
            && summary.contains("the mouth opened widest (")
            && !summary.contains(" 0.00) "),
        "{summary}"
    );
}

#[test]
fn the_c_example_reads_a_voice_file_as_the_embedding_api_does() {
    let Some(exe) = compile(&root().join("examples/c/face.c"), "face-file") else {
        return;
    };
    let wav = root().join("examples/scenes/demo/voice/aoi_1.wav");
    let run = c_program(&exe).arg(&wav).output().unwrap();
    let missing = c_program(&exe)
        .arg(root().join("no-such-line.wav"))
        .output()
        .unwrap();
    let two = c_program(&exe).args([&wav, &wav]).output().unwrap();
    let _ = std::fs::remove_file(&exe);
    assert!(
        run.status.success(),
        "face {} failed: {}",
        wav.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    let c = String::from_utf8(run.stdout).unwrap();
    let rust = rust_frames(&omote_embed::load_voice(&wav).unwrap(), 16_000.0);
    for (k, (a, b)) in c.lines().zip(rust.lines()).enumerate() {
        assert_eq!(a, b, "frame {k} differs between C and Rust");
    }
    assert_eq!(c, rust);
    let summary = String::from_utf8_lossy(&run.stderr);
    assert!(summary.contains("the mouth opened widest ("), "{summary}");
    // Two files: the usage, not one of them quietly.
    assert_eq!(two.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&two.stderr).contains("usage:"));
    // A file that is not there stops the program with the call and the file named.
    let said = String::from_utf8_lossy(&missing.stderr);
    assert!(
        !missing.status.success()
            && said.contains("omote_voice_file_load")
            && said.contains("no-such-line.wav"),
        "{said}"
    );
}

#[test]
fn hostile_calls_from_c_get_a_status_and_a_message() {
    let Some(exe) = compile(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/hostile.c"),
        "hostile",
    ) else {
        return;
    };
    let run = c_program(&exe).output().unwrap();
    let _ = std::fs::remove_file(&exe);
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "hostile.c failed (status {:?}):\n{out}\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    let checked = out.lines().filter(|l| l.starts_with("ok ")).count();
    assert!(checked >= 25, "only {checked} cases ran:\n{out}");
}

/// The demo scene.
fn demo() -> PathBuf {
    root().join("examples/scenes/demo/scene.toml")
}

#[test]
fn the_demo_scene_played_through_the_c_abi_is_the_bake() {
    let Some(exe) = compile(&root().join("examples/c/scene.c"), "scene") else {
        return;
    };
    // The reference: the scene baked at 60 fps, as `omote bake` does.
    let mut loaded = omote_scene::load_scene(&demo(), &Default::default(), &mut |_, _| {}).unwrap();
    let clips = loaded.clip_names();
    let baked =
        omote_scene::bake(&mut loaded.scene, &clips, &Default::default(), |_, _| {}).unwrap();
    let frames = baked[0].anim.frames();
    let out_dir = std::env::temp_dir().join(format!("omote-scene-c-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let run = c_program(&exe)
        .arg(demo())
        .arg(frames.to_string())
        .arg(&out_dir)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&exe);
    let log = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "scene failed: {log}");
    // The voice events reach C with their clip names.
    assert!(
        log.contains("says aoi_1.wav") && log.contains("says beni_2.wav"),
        "{log}"
    );
    let c = String::from_utf8(run.stdout).unwrap();
    assert_eq!(c.lines().count(), frames);
    let mut worst = 0.0f32;
    for (f, line) in c.lines().enumerate() {
        let mut parts = line.split(" |").skip(1);
        for b in &baked {
            let values: Vec<f32> = parts
                .next()
                .unwrap()
                .split_whitespace()
                .map(|h| f32::from_bits(u32::from_str_radix(h, 16).unwrap()))
                .collect();
            let tracks = &b.anim.applied().0;
            assert_eq!(values.len(), tracks.len());
            for (v, (name, track)) in values.iter().zip(tracks) {
                let d = (v - track[f]).abs();
                assert!(
                    d <= 1e-6,
                    "frame {f}, {}: {name} {v} vs the bake's {}",
                    b.id,
                    track[f]
                );
                worst = worst.max(d);
            }
        }
    }
    // The files C wrote from the C ABI's bake are the bake's own.
    for b in &baked {
        let json = std::fs::read_to_string(out_dir.join(format!("{}.anim.json", b.id))).unwrap();
        assert_eq!(
            json,
            omote_embed::anim_json(&b.anim).unwrap(),
            "{}'s anim JSON",
            b.id
        );
        let vrma = std::fs::read(out_dir.join(format!("{}.vrma", b.id))).unwrap();
        let model = &loaded
            .characters
            .iter()
            .find(|c| c.id == b.id)
            .unwrap()
            .model;
        assert_eq!(
            vrma,
            omote_embed::vrma(&b.anim, model.as_ref().unwrap()).unwrap()
        );
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    eprintln!("the C ABI's scene against the bake: largest difference {worst}");
}
