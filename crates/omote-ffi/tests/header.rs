//! `include/omote.h` is generated from this crate: this test generates it again and
//! fails when the checked-in copy differs (`OMOTE_BLESS=1 cargo test -p omote-ffi
//! --test header` rewrites it).

use std::path::Path;

#[test]
fn the_checked_in_header_is_current() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = crate_dir.join("../../include/omote.h");
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).unwrap();
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).unwrap();
    if std::env::var_os("OMOTE_BLESS").is_some() {
        std::fs::write(&header, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&header).unwrap_or_default();
    assert!(
        checked_in == generated,
        "include/omote.h is stale: run `OMOTE_BLESS=1 cargo test -p omote-ffi --test header` and commit it"
    );
    // The ABI has no size_t (C# maps it to nuint, which Mono's compiler rejects).
    assert!(!generated.contains("size_t"), "the header uses size_t");
}
