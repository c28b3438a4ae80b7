//! A scene's files through a resolver: every kind of file a scene names (a VRM, a rig
//! file, a motion map, a voice's audio, a lip sync track) read from memory gives the
//! scene the filesystem gives, bit for bit; a file the resolver lacks is named with
//! the scene line and field that name it.

use std::path::{Path, PathBuf};

use omote_lipsync::{Analyser, Profile, export};
use omote_scene::{
    BakeOptions, FsFiles, LoadOptions, LoadedScene, MemoryFiles, SceneFileError, SceneFiles, bake,
    load_scene, load_scene_with, parse_scene_with,
};

const SCENE: &str = r#"
[[character]]
id = "a"
rig = "models/a.vrm"
motionMap = "maps/map.toml"
  [[character.acting]]
  t = 0.2
  set = { happy = 0.8 }
  [[character.line]]
  t = 0.3
  audio = "voice/a.wav"

[[character]]
id = "b"
rig = "rigs/b.json"
position = [1.0, 1.4, 0.0]
  [[character.line]]
  t = 0.5
  lipsync = "voice/b.json"
"#;

fn demo_voice() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/demo/voice/aoi_1.wav")
}

/// The scene's files: (path relative to the scene, bytes).
fn files() -> Vec<(&'static str, Vec<u8>)> {
    let track =
        omote_scene::analyse_file(&demo_voice(), &mut Analyser::new(Profile::builtin())).unwrap();
    vec![
        (
            "models/a.vrm",
            omote_vrm::avatar::generate_styled(&omote_vrm::avatar::AvatarStyle::DEFAULT),
        ),
        (
            "maps/map.toml",
            omote_scene::ANIME_FACE_MAP.as_bytes().to_vec(),
        ),
        ("voice/a.wav", std::fs::read(demo_voice()).unwrap()),
        ("rigs/b.json", br#"{"name":"b","presets":true}"#.to_vec()),
        ("voice/b.json", export::to_json(&track, "b").into_bytes()),
    ]
}

fn on_disk(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("omote-scene-files-{}-{name}", std::process::id()));
    for (rel, bytes) in files() {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let scene = dir.join("scene.toml");
    std::fs::write(&scene, SCENE).unwrap();
    scene
}

fn in_memory(scene: &Path, except: Option<&str>) -> MemoryFiles {
    let dir = scene.parent().unwrap();
    let mut m = MemoryFiles::new();
    for (rel, bytes) in files() {
        if Some(rel) != except {
            m.insert(dir.join(rel), bytes);
        }
    }
    m
}

fn baked_json(mut loaded: LoadedScene) -> Vec<String> {
    let clips = loaded.clip_names();
    bake(
        &mut loaded.scene,
        &clips,
        &BakeOptions::default(),
        |_, _| {},
    )
    .unwrap()
    .into_iter()
    .map(|c| omote_config::anim_json(&c.anim).unwrap())
    .collect()
}

fn parse(scene: &Path, files: &dyn SceneFiles) -> Result<LoadedScene, String> {
    parse_error(scene, files).map_err(|e| e.to_string())
}

fn parse_error(scene: &Path, files: &dyn SceneFiles) -> Result<LoadedScene, SceneFileError> {
    parse_scene_with(SCENE, scene, &LoadOptions::default(), files, &mut |_, _| {})
}

#[test]
fn every_kind_of_file_from_memory_gives_the_scene_from_disk() {
    let scene = on_disk("same");
    let from_disk = load_scene(&scene, &LoadOptions::default(), &mut |_, _| {}).unwrap();
    let memory = in_memory(&scene, None);
    let from_memory = parse(&scene, &memory).unwrap();
    assert!(from_memory.characters[0].model.is_some(), "a VRM");
    assert_eq!(from_memory.characters[1].rig.name(), "b");
    assert_eq!(
        from_memory.characters[0].lines[0].audio.as_deref(),
        Some(scene.parent().unwrap().join("voice/a.wav").as_path())
    );
    let (a, b) = (baked_json(from_disk), baked_json(from_memory));
    assert_eq!(a, b, "the same anims, byte for byte");
    // The scene file itself through the resolver.
    let mut with_scene = in_memory(&scene, None);
    with_scene.insert(scene.clone(), SCENE.as_bytes().to_vec());
    let all = load_scene_with(&scene, &LoadOptions::default(), &with_scene, &mut |_, _| {});
    assert_eq!(baked_json(all.unwrap()), a);
    std::fs::remove_dir_all(scene.parent().unwrap()).unwrap();
}

#[test]
fn a_file_the_resolver_lacks_is_named_with_its_field() {
    let scene = on_disk("missing");
    let dir = scene.parent().unwrap().to_path_buf();
    let cases = [
        ("models/a.vrm", ":4: character[0].rig"),
        ("maps/map.toml", ":5: character[0].motionMap"),
        ("voice/a.wav", ":11: character[0].line[0].audio"),
        ("rigs/b.json", ":15: character[1].rig"),
        ("voice/b.json", ":19: character[1].line[0].lipsync"),
    ];
    for (rel, field) in cases {
        let from_memory = parse_error(&scene, &in_memory(&scene, Some(rel))).unwrap_err();
        std::fs::rename(dir.join(rel), dir.join("away")).unwrap();
        let from_disk = parse_error(&scene, &FsFiles).unwrap_err();
        std::fs::rename(dir.join("away"), dir.join(rel)).unwrap();
        // Marked as a missing file, which every binding reports as one (C NotFound,
        // Python FileNotFoundError).
        assert!(from_memory.missing_file && from_disk.missing_file, "{rel}");
        let (from_memory, from_disk) = (from_memory.to_string(), from_disk.to_string());
        for e in [&from_memory, &from_disk] {
            assert!(e.contains(field), "{rel}: {e}");
            assert!(
                e.contains(&format!("{}", dir.join(rel).display())),
                "{rel}: {e}"
            );
        }
        // Voice files are checked to exist before any work: the same words either way.
        if rel.starts_with("voice/") {
            assert_eq!(from_memory, from_disk);
            assert!(from_disk.ends_with(omote_fs::NO_SUCH_FILE), "{from_disk}");
        }
    }
    // A resolver that says a file is there but then cannot give it (a host's store that
    // lost it, a file deleted between the check and the read): still a missing file.
    struct Forgetful(MemoryFiles, &'static str);
    impl SceneFiles for Forgetful {
        fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
            if path.ends_with(self.1) {
                Err(std::io::Error::new(std::io::ErrorKind::NotFound, "gone"))
            } else {
                self.0.read(path)
            }
        }
        fn exists(&self, _: &Path) -> bool {
            true
        }
    }
    for rel in ["voice/a.wav", "voice/b.json"] {
        let e = parse_error(&scene, &Forgetful(in_memory(&scene, None), rel)).unwrap_err();
        assert!(e.missing_file, "{rel}: {e}");
        assert!(e.to_string().contains("gone"), "{rel}: {e}");
    }
    // A folder where a voice file should be is named as one, not as missing.
    let voice = dir.join("voice/a.wav");
    std::fs::rename(&voice, dir.join("away")).unwrap();
    std::fs::create_dir(&voice).unwrap();
    let e = parse_error(&scene, &FsFiles).unwrap_err();
    assert!(!e.missing_file, "a folder is there: {e}");
    let e = e.to_string();
    std::fs::remove_dir(&voice).unwrap();
    std::fs::rename(dir.join("away"), &voice).unwrap();
    assert!(e.contains(":11: character[0].line[0].audio"), "{e}");
    assert!(
        e.contains("directory") && !e.contains(omote_fs::NO_SUCH_FILE),
        "{e}"
    );
    let e = load_scene_with(
        &scene,
        &LoadOptions::default(),
        &MemoryFiles::new(),
        &mut |_, _| {},
    )
    .unwrap_err();
    assert!(e.missing_file, "{e}");
    let e = e.to_string();
    assert!(
        e.contains("scene.toml: cannot read the scene: no such file"),
        "{e}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every missing voice file is named in one error (the first, then the others by line,
/// field and file, on the same line), so a writer fixes them in one go.
#[test]
fn every_missing_voice_file_is_named_at_once() {
    let scene = on_disk("all-missing");
    let dir = scene.parent().unwrap().to_path_buf();
    let mut lacking = MemoryFiles::new();
    for (rel, bytes) in files() {
        if !["voice/a.wav", "voice/b.json"].contains(&rel) {
            lacking.insert(dir.join(rel), bytes);
        }
    }
    let e = parse_error(&scene, &lacking).unwrap_err();
    assert!(e.missing_file, "{e}");
    let text = e.to_string();
    assert_eq!(text.lines().count(), 1, "{text}");
    let want = format!(
        "scene.toml:11: character[0].line[0].audio: {}: {}; also missing: line 19 character[1].line[0].lipsync {}",
        dir.join("voice/a.wav").display(),
        omote_fs::NO_SUCH_FILE,
        dir.join("voice/b.json").display(),
    );
    assert!(text.ends_with(&want), "{text}\nwant …{want}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A voice WAV cut short of what its header declares is read (what is there), with a
/// warning that names the scene line, the field and the file; whole files give none.
#[test]
fn a_voice_cut_short_is_read_with_a_warning_naming_its_line() {
    let scene = on_disk("cut");
    let dir = scene.parent().unwrap().to_path_buf();
    let whole = parse(&scene, &FsFiles).unwrap();
    assert_eq!(whole.warnings, Vec::<String>::new());
    let wav = dir.join("voice/a.wav");
    let mut bytes = std::fs::read(&wav).unwrap();
    bytes.truncate(bytes.len() - 2000);
    std::fs::write(&wav, &bytes).unwrap();
    let mut memory = in_memory(&scene, Some("voice/a.wav"));
    memory.insert(wav.clone(), bytes);
    let from_disk = parse(&scene, &FsFiles).unwrap();
    let from_memory = parse(&scene, &memory).unwrap();
    assert_eq!(from_disk.warnings, from_memory.warnings);
    let [w] = from_disk.warnings.as_slice() else {
        panic!("one warning: {:?}", from_disk.warnings)
    };
    let expected = format!(
        ":11: character[0].line[0].audio: {}: ends 2000 bytes early",
        wav.display()
    );
    assert!(w.contains(&expected), "{w}");
    // What is there is read: the line is 1000 samples shorter (16-bit), not lost.
    let (cut, full) = (
        &from_disk.characters[0].lines[0].track,
        &whole.characters[0].lines[0].track,
    );
    assert!(cut.duration() < full.duration() && cut.duration() > full.duration() - 0.2);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A folder where a line's audio should be is named a folder, after its path and a colon.
#[test]
fn a_folder_for_a_voice_file_is_named_a_folder() {
    let dir = std::env::temp_dir().join(format!("omote-scene-dir-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("voice")).unwrap();
    let scene = dir.join("scene.toml");
    std::fs::write(
        &scene,
        "[[character]]\nid = \"a\"\n  [[character.line]]\n  t = 1.0\n  audio = \"voice\"\n",
    )
    .unwrap();
    let e = load_scene(&scene, &LoadOptions::default(), &mut |_, _| {})
        .unwrap_err()
        .to_string();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        e.contains("scene.toml:5: character[0].line[0].audio: "),
        "{e}"
    );
    assert!(
        e.contains("voice: not a regular file (it is a directory)"),
        "{e}"
    );
}
