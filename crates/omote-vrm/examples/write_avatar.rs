//! Write the generated test avatar: `cargo run -p omote-vrm --example write_avatar -- OUT.vrm`.

fn main() -> std::io::Result<()> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "omote-avatar.vrm".into());
    std::fs::write(&out, omote_vrm::avatar::generate())?;
    println!("wrote {out}");
    Ok(())
}
