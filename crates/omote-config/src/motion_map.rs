//! Motion map files (camera-angle face correction), TOML or JSON.

use std::path::Path;

use omote_core::camera::{MotionMapDesc, MotionMapError};
use omote_core::clip::Clip;
use omote_core::{CameraCorrection, MotionMap, Rig};

use crate::{ConfigError, ReadFile, load_with};

/// Read a motion map file (see [`MotionMapDesc`] for the format) and check it: besides
/// syntax and field types, every geometric rule of [`MotionMap::new`] (finite angles in
/// range, distinct points, not all on one line, centre strictly inside the hull).
/// Errors read like `map.toml: point[3].alpha: must be finite`.
///
/// ```no_run
/// let desc = omote_config::load_motion_map(std::path::Path::new("examples/maps/anime-face.toml"))?;
/// println!("{} correction motions", desc.points.len());
/// # Ok::<(), omote_config::ConfigError>(())
/// ```
pub fn load_motion_map(path: &Path) -> Result<MotionMapDesc, ConfigError> {
    read_motion_map(path).map(|map| map.desc().clone())
}

/// Read and check a motion map file, returning the map ready for queries.
pub fn read_motion_map(path: &Path) -> Result<MotionMap, ConfigError> {
    read_motion_map_with(path, &crate::read::config_file)
}

fn read_motion_map_with(path: &Path, read: ReadFile<'_>) -> Result<MotionMap, ConfigError> {
    let desc: MotionMapDesc = load_with(path, read)?;
    MotionMap::new(&desc).map_err(|e| motion_map_error(path, &e))
}

/// Read a motion map file and resolve it against `rig` (every expression name must be a
/// rig channel). `clips` supplies the clips points name by `clip = "…"`; pass `|_| None`
/// if there are none.
pub fn load_camera_correction<'c>(
    path: &Path,
    rig: &Rig,
    clips: impl Fn(&str) -> Option<&'c Clip>,
) -> Result<CameraCorrection, ConfigError> {
    load_camera_correction_with(path, rig, clips, &crate::read::config_file)
}

/// [`load_camera_correction`] with the file's bytes from `read`.
pub fn load_camera_correction_with<'c>(
    path: &Path,
    rig: &Rig,
    clips: impl Fn(&str) -> Option<&'c Clip>,
    read: ReadFile<'_>,
) -> Result<CameraCorrection, ConfigError> {
    let map = read_motion_map_with(path, read)?;
    CameraCorrection::with_clips(map, rig, clips).map_err(|e| motion_map_error(path, &e))
}

/// A core motion map error as a file error: `path: field: message`.
pub fn motion_map_error(path: &Path, e: &MotionMapError) -> ConfigError {
    ConfigError::invalid(path, e.to_string())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::{Format, parse};

    fn check(text: &str) -> Result<MotionMap, String> {
        let path = Path::new("map.toml");
        let desc: MotionMapDesc = parse(text, Format::Toml, path).map_err(|e| e.to_string())?;
        MotionMap::new(&desc).map_err(|e| motion_map_error(path, &e).to_string())
    }

    const GOOD: &str = r#"
        [[point]]
        name = "front"
        alpha = 0
        beta = 0
        [point.expressions]
        happy = 0.3

        [[point]]
        name = "left"
        alpha = 80.5
        beta = 0

        [[point]]
        name = "high"
        alpha = 0
        beta = 50

        [[point]]
        name = "low-right"
        alpha = -60
        beta = -40
    "#;

    fn example() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/maps/anime-face.toml")
    }

    #[test]
    fn reads_points_in_file_order_with_default_centre() {
        let map = check(GOOD).unwrap();
        let names: Vec<&str> = (0..map.len()).map(|i| map.name(i)).collect();
        assert_eq!(names, ["front", "left", "high", "low-right"]);
        assert_eq!(map.center(), [0.0, 0.0]);
        assert_eq!(map.points()[0].expressions["happy"], 0.3);
    }

    #[test]
    fn errors_name_the_file_and_the_field() {
        let nan = GOOD.replace("alpha = 80.5", "alpha = nan");
        assert_eq!(
            check(&nan).unwrap_err(),
            "map.toml: point[1].alpha: must be finite"
        );
        let text = GOOD.replace("alpha = 80.5", r#"alpha = "left""#);
        let e = check(&text).unwrap_err();
        assert!(
            e.starts_with("map.toml: point[1].alpha: invalid type"),
            "{e}"
        );
        let text = GOOD.replace("beta = 50", "beta = 50\nbravo = 1");
        let e = check(&text).unwrap_err();
        assert!(
            e.starts_with("map.toml: point[2]") && e.contains("bravo"),
            "{e}"
        );
        let text = GOOD.replace("happy = 0.3", "happy = true");
        let e = check(&text).unwrap_err();
        assert!(
            e.starts_with("map.toml: point[0].expressions.happy:"),
            "{e}"
        );
        let text = format!("[center]\nalpha = 170\n{GOOD}");
        assert_eq!(
            check(&text).unwrap_err(),
            "map.toml: center: (170, 0) is not strictly inside the convex hull of the points"
        );
        let text = GOOD.replace(r#"name = "high""#, r#"name = "left""#);
        assert_eq!(
            check(&text).unwrap_err(),
            "map.toml: point[2].name: `left` is already the name of point[1]"
        );
        assert!(
            check("[[point]]\nname = 'a'\n")
                .unwrap_err()
                .contains("missing field `alpha`")
        );
        assert_eq!(
            check("").unwrap_err(),
            "map.toml: point: a motion map needs at least 3 points, found 0"
        );
        let e = check("[[point]\nname = 'a'").unwrap_err();
        assert!(e.starts_with("map.toml: "), "{e}");
    }

    #[test]
    fn the_example_map_loads_and_resolves_against_the_standard_rig() {
        let desc = load_motion_map(&example()).unwrap();
        assert_eq!(desc.points.len(), 9);
        let rig = Rig::standard();
        let c = load_camera_correction(&example(), &rig, |_| None).unwrap();
        assert_eq!(c.map().hull().len(), 8);
        assert!(c.map().fade(180.0, 0.0) == 0.0);
    }

    #[test]
    fn unknown_channels_and_missing_files() {
        let dir = std::env::temp_dir().join(format!("omote-motion-map-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("map.toml");
        std::fs::write(&path, GOOD.replace("happy = 0.3", "grin = 0.3")).unwrap();
        let e = load_camera_correction(&path, &Rig::standard(), |_| None)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!(
                "{}: point[0].expressions.grin: no channel named `grin` in the rig",
                path.display()
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
        let e = load_motion_map(&dir.join("nope.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("nope.toml"), "{e}");
    }
}
