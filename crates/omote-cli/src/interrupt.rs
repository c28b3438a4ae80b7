//! Ctrl-C (SIGINT), and SIGTERM and SIGHUP (`timeout`, systemd, a closed terminal, a
//! script stopping the process), for the sessions that run until stopped (`live`,
//! `vmc listen`, `track` on a stream): the first asks the session to stop — it finishes
//! the frame at hand and writes its recording — a second one ends the process at once
//! (exit 130). Commands that never call [`install`] keep the default (killed at once;
//! their result files are written whole or not at all, see `output.rs`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;

/// Installs the handler and returns the flag it sets. Sessions pass the flag to the
/// loops (`omote_live`'s `stop_on`) and check [`stopped`] afterwards.
pub fn install() -> anyhow::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    let seen = flag.clone();
    ctrlc::set_handler(move || {
        if seen.swap(true, Ordering::SeqCst) {
            eprintln!("\ninterrupted again: stopping without writing");
            std::process::exit(130);
        }
        eprintln!(
            "\ninterrupted: finishing and writing what was recorded (Ctrl-C again to quit at once)"
        );
    })
    .context("cannot install the Ctrl-C handler")?;
    Ok(flag)
}

/// Whether the session was interrupted.
pub fn stopped(flag: &AtomicBool) -> bool {
    flag.load(Ordering::SeqCst)
}
