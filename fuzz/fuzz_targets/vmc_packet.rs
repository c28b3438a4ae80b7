//! Fuzz the VMC reader: any UDP payload through the OSC decoder and the receiver state.
//! Errors are fine; panics, and non-finite values reaching the receiver's state, are not.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(messages) = omote_vmc::osc::parse_packet(data) else {
        return;
    };
    let mut r = omote_vmc::VmcReceiver::new();
    if r.apply(&messages).is_ok() {
        assert!(r.blends().values().all(|v| v.is_finite()));
        for name in ["Head", "LeftEye", "RightEye", "root"] {
            if let Some((p, q)) = r.bone(name) {
                assert!(p.is_finite() && q.is_finite());
            }
        }
    }
});
