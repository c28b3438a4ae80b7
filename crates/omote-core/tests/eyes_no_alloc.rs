//! `Face::update` with the automatic blink and saccades allocates nothing, frame after
//! frame, through blinks, double blinks, motions, saccades, requests and mode changes.

// A counting global allocator needs `unsafe impl GlobalAlloc` (test only).
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use omote_core::{EyeMode, Face, FaceConfig, FaceInputs, Rig};

struct Counting;

thread_local! {
    static COUNT: Cell<bool> = const { Cell::new(false) };
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; only counts calls on this thread.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNT.with(Cell::get) {
            ALLOCS.with(|a| a.set(a.get() + 1));
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn face_update_with_eyes_allocates_nothing() {
    let rig = Arc::new(Rig::standard());
    let mut face = Face::new(rig.clone(), FaceConfig::default(), 3);
    face.layer_mut(Face::BASE)
        .set(rig.channel("happy").unwrap(), 0.4);
    let mut events = 0;
    COUNT.with(|c| c.set(true));
    for i in 0..60 * 600 {
        if i % 600 == 0 {
            face.set_eye_mode(EyeMode::ALL[(i / 600) % 4]);
            face.request_blink();
            face.schedule_eye_change(1.0);
        }
        let inputs = FaceInputs {
            gaze_yaw_deg: if (i / 240) % 2 == 0 { 0.0 } else { 40.0 },
            ..FaceInputs::default()
        };
        events += face.update(1.0 / 60.0, &inputs).events().len();
    }
    COUNT.with(|c| c.set(false));
    assert!(events > 300, "{events}");
    assert_eq!(ALLOCS.with(Cell::get), 0);
}
