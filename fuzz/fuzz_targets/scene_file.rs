//! Scene files: any text gives a scene or an error naming the file, never a panic.
//! Files the scene names resolve under a folder that does not exist, so only the
//! parser, the checks and the runtime's construction are exercised.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let path = std::path::Path::new("/nonexistent-omote-fuzz/scene.toml");
        let options = omote_scene::LoadOptions::default();
        if let Ok(mut loaded) = omote_scene::parse_scene(text, path, &options, &mut |_, _| {}) {
            // A scene that loads also runs.
            for _ in 0..30 {
                loaded.scene.update(1.0 / 30.0);
            }
        }
    }
});
