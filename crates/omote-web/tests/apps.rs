//! The npm package in real apps (`web/test/apps/check.mjs`): packed with `npm pack`,
//! installed from the tarball into a Vite app and a webpack app (their tools pinned by
//! lock files, `npm ci`), built for production, served and opened in headless Chromium
//! with a fake microphone playing a voice line: the voice line drives the mouth, the
//! microphone drives it through the bundled AudioWorklet (inlined as a `data:` URL by
//! Vite, copied as a file by webpack), and a start that fails leaves no live track.
//! Skips (fails under CI) without `web/dist`, npm, the Node helpers or Chromium; needs
//! the npm registry the first time (`npm ci`).

use std::path::{Path, PathBuf};
use std::process::Command;

use omote_testdata::missing;

#[test]
fn the_package_works_in_a_vite_and_a_webpack_production_build() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    let chromium = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if !root.join("web/dist/omote_web_bg.wasm").is_file() {
        return missing("web/dist is not built (web/build.sh)");
    }
    if !root
        .join("tools/viewer-check/node_modules/playwright-core")
        .is_dir()
        || !chromium.is_file()
    {
        return missing("tools/viewer-check/node_modules (npm ci) or Chromium");
    }
    if Command::new("npm").arg("--version").output().is_err() {
        return missing("npm");
    }
    let out = Command::new("node")
        .arg(root.join("web/test/apps/check.mjs"))
        .arg(&root)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no report ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    println!("{report}");
    assert!(out.status.success(), "{report:#}");
    for app in ["vite", "webpack"] {
        let r = &report["apps"][app]["result"];
        assert!(
            r["line"]["meanMouthVoiced"].as_f64() > Some(0.3),
            "{app}: {r}"
        );
        assert!(r["mic"]["maxMouth"].as_f64() > Some(0.3), "{app}: {r}");
        assert_eq!(
            r["failedStart"]["liveTracks"].as_i64(),
            Some(0),
            "{app}: {r}"
        );
    }
}
