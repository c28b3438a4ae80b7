//! Fuzz the VMC recorder's performer-time path: a stream of packets, each with the
//! performer's clock (any f64, jumps, restarts, 1e30, NaN) and a wall-clock budget,
//! through `VmcReceiver::apply` and `VmcRecorder::advance_within`. It must never panic;
//! one advance adds at most `MAX_FILL_FRAMES` frames; the recording never exceeds the
//! budget or its value cap; every rotation is a unit quaternion (never `[0, 0, 0, 0]`);
//! the anim it finishes is valid.
#![no_main]

use libfuzzer_sys::fuzz_target;
use omote_vmc::{VmcReceiver, VmcRecorder};

fuzz_target!(|data: &[u8]| {
    let Some((&fps, mut rest)) = data.split_first() else {
        return;
    };
    let fps = f32::from(fps % 120) + 1.0;
    let max_values = 50_000;
    let mut rec = VmcRecorder::new(fps).with_max_values(max_values);
    let mut receiver = VmcReceiver::new();
    let mut budget = 0usize;
    // Each packet: 8 bytes of performer time, 2 bytes of budget growth, 2 bytes of
    // length, then that many bytes of OSC.
    while rest.len() >= 12 {
        let t = f64::from_le_bytes(rest[..8].try_into().unwrap());
        budget += usize::from(u16::from_le_bytes([rest[8], rest[9]]) % 1024);
        let len = usize::from(u16::from_le_bytes([rest[10], rest[11]])).min(rest.len() - 12);
        let packet = &rest[12..12 + len];
        rest = &rest[12 + len..];
        if let Ok(messages) = omote_vmc::osc::parse_packet(packet) {
            let _ = receiver.apply(&messages);
        }
        let before = rec.frames();
        let added = rec.advance_within(t, &receiver, budget);
        assert!(added <= VmcRecorder::MAX_FILL_FRAMES);
        assert_eq!(rec.frames(), before + added);
        assert!(rec.frames() <= budget.max(before));
    }
    let anim = rec.finish();
    assert!(anim.validate().is_ok());
    let values = anim.frames() * (anim.expressions.0.len() + 14);
    assert!(values as u64 <= max_values);
    for q in anim.head.iter().chain(&anim.left_eye).chain(&anim.right_eye) {
        let len: f32 = q.iter().map(|v| v * v).sum();
        assert!((len - 1.0).abs() < 1e-3, "{q:?}");
    }
});
