//! Fuzz the WebSocket frame reader: any bytes a client sends after the handshake
//! (`omote_serve::frame::ClientReader`). Errors are fine; panics are not, nor a ping
//! payload over 125 bytes, nor an event that reads no bytes (a reader loop that spins).
#![no_main]

use libfuzzer_sys::fuzz_target;
use omote_serve::frame::{ClientEvent, ClientReader, MAX_CONTROL};

fuzz_target!(|data: &[u8]| {
    let mut reader = ClientReader::new(data);
    // Every frame takes at least 6 bytes (header and mask), so this bound ends the loop.
    for _ in 0..=data.len() / 6 {
        match reader.next_event() {
            Ok(ClientEvent::Ping(payload)) => assert!(payload.len() <= MAX_CONTROL),
            Ok(_) => {}
            Err(e) => {
                let _ = e.close_code();
                return;
            }
        }
    }
    panic!("more frames than the input holds");
});
