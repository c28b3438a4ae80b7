//! Shared helpers: where the sample files are.

use std::path::PathBuf;

/// `shared/data/vrm` beside the repository, or `None` (with a message) when absent.
pub fn vrm_data_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/vrm"
    ));
    if dir.join("README.md").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "SKIP: {} is absent (the shared VRM samples live beside the repository)",
            dir.display()
        );
        None
    }
}

/// Every `.vrm` in the sample folder, sorted.
pub fn sample_vrms(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read sample dir")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "vrm"))
        .collect();
    v.sort();
    v
}
