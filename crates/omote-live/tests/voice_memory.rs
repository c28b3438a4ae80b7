//! A live voice's memory does not grow with the session: live heap bytes are counted by
//! a global allocator (its own test binary, one test, so nothing else allocates).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

use omote_lipsync::VowelFrame;
use omote_live::{LiveError, Overflow, ThreadedVoice, VoiceSource};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's layout, as given.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// A microphone that never stops: 100 frames per call, each numbered by its volume.
struct Endless(u64);

impl VoiceSource for Endless {
    fn next_frames(&mut self, out: &mut Vec<VowelFrame>) -> Result<bool, LiveError> {
        for _ in 0..100 {
            out.push(VowelFrame {
                weights: [0.0; 6],
                volume: self.0 as f32,
                silent: false,
            });
            self.0 += 1;
        }
        Ok(true)
    }
}

#[test]
fn a_long_session_uses_no_more_memory_than_a_short_one() {
    let voice = ThreadedVoice::spawn(Endless(0), 500, Overflow::Wait, "endless");
    let mut k = 0u64;
    let mut session = |frames: u64| {
        for _ in 0..frames {
            let f = voice.frame_at_time((k as f64 + 0.5) / 100.0, Duration::from_secs(20));
            assert_eq!(f.map(|f| f.volume as u64), Some(k));
            k += 1;
        }
    };
    session(2_000); // warm: buffers allocated
    let warm = LIVE.load(Ordering::Relaxed);
    session(50_000); // over eight minutes of voice
    let after = LIVE.load(Ordering::Relaxed);
    assert!(
        after - warm < 4096,
        "live heap grew by {} bytes over 50 000 frames",
        after - warm
    );
    assert!(voice.buffer().len() <= 500);
}
