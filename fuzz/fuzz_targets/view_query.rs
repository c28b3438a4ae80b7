//! The scene viewer's bake query (`/bake?advance=…&skip=…`): any query gives a press
//! script within its bounds or a short error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(query) = std::str::from_utf8(data) {
        let (max_t, max_presses) = (620.5, 256);
        match omote_scene::parse_press_query(query, max_t, max_presses) {
            Ok((advances, skips)) => {
                for times in [&advances, &skips] {
                    assert!(times.len() <= max_presses);
                    assert!(times.iter().all(|t| t.is_finite() && (0.0..=max_t).contains(t)));
                }
            }
            Err(msg) => assert!(msg.len() < 400, "an error echoes at most a little: {msg}"),
        }
    }
});
