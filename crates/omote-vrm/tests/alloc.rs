//! The reader never copies the binary chunk. This needs its own test binary (a counting
//! global allocator, from `dhat`, would count every other test too).

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

#[test]
fn reading_a_20_mb_model_does_not_copy_its_binary_buffer() {
    let bytes = omote_vrm::avatar::generate_large(20_000_000);
    let chunks = omote_vrm::glb::split(&bytes, "large.vrm").unwrap();
    let (json_len, bin) = (chunks.json.len(), chunks.bin.unwrap().len());
    let path = std::env::temp_dir().join(format!("omote-alloc-{}.vrm", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();

    let _profiler = dhat::Profiler::builder().testing().build();
    // From memory: no copy at all. Everything allocated is JSON-sized.
    let before = dhat::HeapStats::get();
    let model = omote_vrm::VrmModel::from_slice(&bytes, "large.vrm").unwrap();
    let after = dhat::HeapStats::get();
    let from_slice = after.total_bytes - before.total_bytes;
    assert_eq!(model.expressions.len(), 270);
    // A copy of the binary chunk would raise the peak of live heap by ~19 MB.
    let peak = after.max_bytes;
    assert!(
        peak < bin / 2,
        "from_slice's heap peaked at {peak} bytes for a {bin}-byte binary chunk"
    );
    drop(model);

    // From a file: the file is read into memory once (std::fs::read sizes its buffer
    // from the file length), everything else is what from_slice allocates.
    let before = dhat::HeapStats::get();
    let model = omote_vrm::VrmModel::read(&path).unwrap();
    let after = dhat::HeapStats::get();
    let read = (after.total_bytes - before.total_bytes) as usize;
    let extra = read as i64 - from_slice as i64 - bytes.len() as i64;
    assert!(
        extra.abs() < 64 * 1024,
        "read allocated {read} bytes: from_slice's {from_slice} + the {}-byte file + {extra}",
        bytes.len()
    );
    eprintln!(
        "file {} bytes (JSON {json_len}, BIN {bin}): from_slice allocated {from_slice} bytes in total \
         (peak live {peak}); read allocated {read} = one copy of the file + the same",
        bytes.len()
    );
    drop(model);
    let _ = std::fs::remove_file(&path);
}
