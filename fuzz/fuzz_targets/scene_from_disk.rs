//! Scene files from disk, as `omote bake` and `omote view` read them: the bytes are
//! written to a file and loaded through the filesystem (`omote-fs`: regular files only,
//! the scene's size limit checked before a byte is read, then UTF-8, then the parse).
//! Any bytes give a scene or an error naming the file, never a panic. An input starting
//! with `L` is also made one byte longer than the limit (a sparse file, cheap): it must
//! be refused by its size, unread.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

/// This process's own folder: the scene file and nothing it names (files the scene
/// names resolve under it and are missing, so only reading and the checks run).
fn folder() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("omote-fuzz-scene-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let path = folder().join("scene.toml");
    std::fs::write(&path, data).expect("the scene file is written");
    let oversized = data.first() == Some(&b'L');
    if oversized {
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(omote_fs::Limit::SCENE.bytes + 1).unwrap();
    }
    let options = omote_scene::LoadOptions::default();
    match omote_scene::load_scene(&path, &options, &mut |_, _| {}) {
        Ok(mut loaded) => {
            assert!(!oversized, "a scene over the size limit was loaded");
            for _ in 0..30 {
                loaded.scene.update(1.0 / 30.0);
            }
        }
        Err(e) => {
            let text = e.to_string();
            assert!(text.contains("scene.toml"), "the error does not name the file: {text}");
            if oversized {
                assert!(text.contains("MiB a scene file"), "not refused by size: {text}");
            }
        }
    }
});
