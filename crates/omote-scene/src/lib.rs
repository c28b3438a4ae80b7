//! # omote-scene
//!
//! Dialogue scenes as data. A TOML scene file (schema: `docs/scene-format.md`) names
//! characters (a rig or VRM each), their acting and picture-making keys, voice lines,
//! gaze and eye-mode keys, a camera path and wait points. [`load_scene`] checks it
//! line by line, finds every file it names before any work, runs lip sync on the voice
//! files and builds `omote_core::Scene`; [`bake`] runs that at a fixed frame rate with a
//! script of player presses and records one anim per character.
//!
//! ```no_run
//! use omote_scene::{BakeOptions, LoadOptions, bake, load_scene};
//! let mut loaded = load_scene("examples/scenes/demo/scene.toml".as_ref(), &LoadOptions::default(), &mut |_, _| {})?;
//! let clips = loaded.clip_names();
//! for c in bake(&mut loaded.scene, &clips, &BakeOptions::default(), |_, _| {})? {
//!     println!("{}: {} frames", c.id, c.anim.frames());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bake;
mod error;
pub mod file;
mod files;
mod load;
mod press;
mod voice;

pub use bake::{
    BakeError, BakeOptions, BakeSize, BakedCharacter, MAX_BAKE_S, MAX_BAKE_VALUES, MAX_PRESSES,
    SceneRecorder, anim_values_per_frame, bake, bake_observed, bake_size,
};
pub use error::SceneFileError;
pub use files::{FsFiles, MemoryFiles, SceneFiles};
pub use load::{
    ANIME_FACE_MAP, LoadOptions, LoadedCharacter, LoadedLine, LoadedScene, MAX_CHARACTERS,
    MAX_ITEMS, MAX_TIME_S, Progress, anime_face_correction, load_scene, load_scene_with,
    parse_scene, parse_scene_with,
};
pub use press::parse_press_query;
pub use voice::analyse_file;

impl LoadedScene {
    /// The frame rate a bake runs at: the one `asked` for, else the file's, else 60.
    pub fn bake_fps(&self, asked: Option<f32>) -> f32 {
        asked.or(self.fps).unwrap_or(60.0)
    }

    /// Each character's clip names in the order its lines play (for [`bake`]).
    pub fn clip_names(&self) -> Vec<Vec<String>> {
        self.characters
            .iter()
            .map(|c| c.lines.iter().map(|l| l.clip.clone()).collect())
            .collect()
    }
}
