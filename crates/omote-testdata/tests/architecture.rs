//! ARCHITECTURE.md stays true: its list of each crate's dependencies is the one
//! `cargo metadata` gives, crate for crate, so a new dependency (or a crate) cannot land
//! without the page saying so — and a dependency pointing back up the floors shows.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// `crate: dep dep …` lines of the page's dependency block.
fn documented(page: &str) -> BTreeMap<String, Vec<String>> {
    let marker = "Each crate's dependencies";
    let from = page
        .find(marker)
        .expect("ARCHITECTURE.md has no dependency block");
    let block = &page[from..];
    let start = block
        .find("```text\n")
        .expect("the block opens with ```text")
        + 8;
    let end = block[start..].find("```").expect("the block closes") + start;
    block[start..end]
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, deps) = l.split_once(':').unwrap_or_else(|| panic!("`{l}`: no `:`"));
            let mut deps: Vec<String> = deps
                .split_whitespace()
                .filter(|d| *d != "(none)")
                .map(str::to_owned)
                .collect();
            deps.sort();
            (name.trim().to_owned(), deps)
        })
        .collect()
}

/// Every workspace crate's normal dependencies, from `cargo metadata`.
fn actual(root: &Path) -> BTreeMap<String, Vec<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut crates = BTreeMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let mut deps: Vec<String> = p["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].is_null())
            .map(|d| d["name"].as_str().unwrap().to_owned())
            .collect();
        deps.sort();
        deps.dedup();
        crates.insert(p["name"].as_str().unwrap().to_owned(), deps);
    }
    crates
}

/// The floor of each of our crates: a crate may depend only on crates on lower floors.
fn floor(name: &str) -> u32 {
    match name {
        "omote-core" | "omote-serve" | "omote-plot" | "omote-audio" | "omote-testdata"
        | "omote-fs" => 0,
        "omote-config" | "omote-vrm" | "omote-lipsync" | "omote-tracker" | "omote-vmc" => 1,
        "omote-avatar" => 2,
        "omote-live" | "omote-scene" => 3,
        "omote-embed" => 4,
        "omote-web" | "omote-ffi" | "omote-py" => 5,
        "omote-cli" => 5,
        other => panic!("{other}: a crate ARCHITECTURE.md's floors do not place"),
    }
}

#[test]
fn the_documented_dependencies_are_the_real_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let page = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let (doc, real) = (documented(&page), actual(&root));
    for (name, deps) in &real {
        match doc.get(name) {
            None => panic!("ARCHITECTURE.md does not list {name} (its dependencies: {deps:?})"),
            Some(d) => assert_eq!(d, deps, "ARCHITECTURE.md's dependencies of {name}"),
        }
        assert!(
            page.contains(&format!("| `{name}` |")),
            "ARCHITECTURE.md's crate table has no row for {name}"
        );
    }
    for name in doc.keys() {
        assert!(
            real.contains_key(name),
            "ARCHITECTURE.md lists {name}, which is not a crate"
        );
    }
}

#[test]
fn dependencies_point_down_toward_the_core() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (name, deps) in actual(&root) {
        for dep in deps.iter().filter(|d| d.starts_with("omote-")) {
            assert!(
                floor(dep) < floor(&name),
                "{name} depends on {dep}, which is not below it"
            );
        }
    }
}
