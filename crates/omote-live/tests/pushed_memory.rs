//! A pushed voice whose consumer stops reading keeps a constant memory: live heap bytes
//! are counted by a global allocator, per thread: the test harness's own thread may
//! allocate at any moment (it books the running test after spawning it), and on a
//! loaded machine that landed inside the measured window. Pushes happen on the test's
//! thread and `pushed_voice` starts no thread of its own. Ten minutes of 48 kHz stereo
//! are pushed; the pushes allocate nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::Duration;

use omote_lipsync::Profile;
use omote_live::{VoiceSource, pushed_voice};

struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static CALLS: Cell<usize> = const { Cell::new(0) };
}

fn live() -> isize {
    LIVE.with(Cell::get)
}

fn calls() -> usize {
    CALLS.with(Cell::get)
}

// `try_with`: the slots may already be gone while a thread shuts down.
fn book(bytes: isize, calls: usize) {
    let _ = LIVE.try_with(|c| c.set(c.get() + bytes));
    let _ = CALLS.try_with(|c| c.set(c.get() + calls));
}

// SAFETY: forwards to the system allocator; only counts.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        book(layout.size() as isize, 1);
        // SAFETY: the caller's layout, as given.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        book(-(layout.size() as isize), 0);
        // SAFETY: allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

#[test]
fn a_stalled_consumer_costs_no_memory_and_its_losses_are_counted() {
    let (mut feed, mut voice) =
        pushed_voice("mic", 2, 48_000, Duration::from_secs(1), Profile::builtin()).unwrap();
    let meter = voice.meter();
    // 10 ms stereo callbacks of a 300 Hz tone, one sample short so pushes split frames.
    let chunk: Vec<f32> = (0..959)
        .map(|i| 0.25 * ((i / 2) as f32 * 300.0 * std::f32::consts::TAU / 48_000.0).sin())
        .collect();
    feed.push_f32(&chunk); // warm
    let (live_before, calls_before) = (live(), calls());
    let pushes = 60_000u64; // ten minutes
    for _ in 0..pushes {
        assert!(feed.push_f32(&chunk));
    }
    assert_eq!(calls(), calls_before, "a push allocates nothing");
    assert_eq!(live(), live_before);
    assert_eq!(voice.capacity_samples(), 48_000, "the ring never grows");
    let received = (pushes + 1) * 959 / 2;
    assert_eq!(meter.received_samples(), received);
    assert!(voice.buffered_samples() >= 47_999);
    assert_eq!(
        meter.dropped_samples() + voice.buffered_samples() as u64,
        received,
        "every sample is either kept or counted as dropped"
    );
    // What is kept is the newest second: about 100 frames.
    drop(feed);
    let mut frames = Vec::new();
    while voice.next_frames(&mut frames).unwrap() {}
    assert!((97..=100).contains(&frames.len()), "{}", frames.len());
}
