//! A program of C API calls read from bytes: the fuzz target `fuzz/fuzz_targets/ffi_calls.rs`
//! and the stable test `tests/call_sequences.rs` both run it. Handles are picked from
//! the live ones, freed ones, 0 and made-up numbers; numbers include NaN, infinities
//! and huge values; lengths are right or wrong — but never longer than the buffer really
//! is (that half of the contract is the caller's). What must hold: no call returns
//! `OMOTE_STATUS_INTERNAL` (a panic caught at the boundary), every failure leaves a
//! message naming its call, every output number is finite and weights stay in 0–1.

#![allow(unsafe_code)]

use std::ffi::{CStr, CString};

use omote_ffi::*;

/// Reads bytes as a stream of choices.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    fn float(&mut self) -> f32 {
        match self.byte() % 12 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => 1e30,
            4 => -1.0,
            5 => 0.0,
            6 => 1.0 / 60.0,
            7 => 3600.0,
            _ => f32::from(self.byte()) / 128.0 - 0.5,
        }
    }

    fn count(&mut self, right: u32) -> u32 {
        match self.byte() % 8 {
            0 => right.saturating_sub(1),
            1 => right + 1,
            2 => 0,
            _ => right,
        }
    }
}

/// The handles a program has seen.
#[derive(Default)]
struct Pool {
    live: Vec<u64>,
    freed: Vec<u64>,
}

/// The kinds of handle, as the top byte of each.
const AVATAR: u8 = 0xA1;
const CHARACTER: u8 = 0xA2;
const TRACK: u8 = 0xA3;
const SPEAKER: u8 = 0xA4;
const STREAM: u8 = 0xA5;
const VOICE_FILE: u8 = 0xA8;

/// Files for the voice-file calls: a short 16-bit WAV, the same cut short, a text file
/// and a path with nothing there (written once per process, in the temporary folder).
fn voice_paths() -> &'static [CString; 4] {
    static PATHS: std::sync::OnceLock<[CString; 4]> = std::sync::OnceLock::new();
    PATHS.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("omote-ffi-calls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let pcm: Vec<i16> = (0..1600i16).map(|i| (i % 80 - 40) * 400).collect();
        let wav = omote_testdata::wav16(&pcm, 16_000, 1);
        let files: [(&str, &[u8]); 3] = [
            ("line.wav", &wav),
            ("cut.wav", &wav[..wav.len() - 1000]),
            ("notes.wav", b"not a recording\n"),
        ];
        for (name, bytes) in files {
            std::fs::write(dir.join(name), bytes).expect("a temporary file");
        }
        ["line.wav", "cut.wav", "notes.wav", "missing.wav"]
            .map(|name| CString::new(dir.join(name).to_str().expect("a UTF-8 path")).unwrap())
    })
}

impl Pool {
    /// Mostly a live handle of `kind` (so programs reach real work), sometimes any.
    fn of(&self, b: &mut Bytes, kind: u8) -> u64 {
        let k = b.byte();
        let mine: Vec<u64> = self
            .live
            .iter()
            .copied()
            .filter(|h| (h >> 56) as u8 == kind)
            .collect();
        if k % 8 < 6 && !mine.is_empty() {
            mine[k as usize % mine.len()]
        } else {
            self.any(k)
        }
    }

    /// A handle chosen by `k`: 0, a freed one, a made-up one or a live one of any kind.
    fn any(&self, k: u8) -> u64 {
        match k % 8 {
            0 => 0,
            1 => self
                .freed
                .get(k as usize % self.freed.len().max(1))
                .copied()
                .unwrap_or(7),
            2 => u64::from(k) << 56 | 1 << 32,
            _ => self
                .live
                .get(k as usize % self.live.len().max(1))
                .copied()
                .unwrap_or(0),
        }
    }
}

fn check(status: OmoteStatus, call: &str) {
    assert_ne!(
        status,
        OmoteStatus::Internal,
        "{call} hit an internal error"
    );
    if status != OmoteStatus::Ok {
        // SAFETY: omote_last_error is never null and NUL-terminated.
        let msg = unsafe { CStr::from_ptr(omote_last_error()) }.to_string_lossy();
        assert!(
            msg.starts_with(call),
            "{call}'s message `{msg}` does not name it"
        );
    }
}

fn finite(values: &[f32], what: &str) {
    assert!(values.iter().all(|v| v.is_finite()), "{what}: {values:?}");
}

/// Runs the program in `data`; frees everything it made at the end. Returns how many
/// frames were stepped successfully (so a test can see the programs reach real work).
pub fn run(data: &[u8]) -> u32 {
    let mut stepped = 0;
    let mut b = Bytes(data);
    let mut pool = Pool::default();
    let samples: Vec<f32> = (0..4800)
        .map(|i| ((i % 96) as f32 / 48.0 - 1.0) * 0.3)
        .collect();
    let mut weights = vec![0.0f32; 256];
    let mut rotations = [0.0f32; 12];
    let mut frames = vec![0.0f32; 2048];
    let names = [c"happy", c"aa", c"blink", c"smile", c"", c"jawOpen"];
    let mut ops = 0;
    while !b.0.is_empty() && ops < 200 {
        ops += 1;
        let op = b.byte() % 25;
        let kind = match op {
            2 => AVATAR,
            0 | 1 | 12 | 16 | 20 => 0,
            18 => STREAM,
            21 => SPEAKER,
            22 => {
                [AVATAR, CHARACTER, TRACK, SPEAKER, STREAM, VOICE_FILE][usize::from(b.byte() % 6)]
            }
            24 => VOICE_FILE,
            _ => CHARACTER,
        };
        let handle = if kind == 0 { 0 } else { pool.of(&mut b, kind) };
        // SAFETY (all calls below): every pointer is null or points at a live buffer at
        // least as long as the count passed with it.
        unsafe {
            match op {
                0 => {
                    let mut h = 0;
                    let s = omote_avatar_builtin(u32::from(b.byte() % 4), &mut h);
                    check(s, "omote_avatar_builtin");
                    if s == OmoteStatus::Ok {
                        pool.live.push(h);
                    }
                }
                1 => {
                    let mut h = 0;
                    let json = [
                        c"{\"presets\": true}",
                        c"{\"presets\": false}",
                        c"{",
                        c"{\"expressions\": [{\"name\": \"a\"}]}",
                    ];
                    let s =
                        omote_avatar_from_rig_json(json[b.byte() as usize % 4].as_ptr(), &mut h);
                    check(s, "omote_avatar_from_rig_json");
                    if s == OmoteStatus::Ok {
                        pool.live.push(h);
                    }
                }
                2 => {
                    let mut h = 0;
                    let s = omote_character_new(handle, u64::from(b.byte()), &mut h);
                    check(s, "omote_character_new");
                    if s == OmoteStatus::Ok {
                        pool.live.push(h);
                    }
                }
                3 => {
                    let w = b.float();
                    check(
                        omote_character_set_expression(handle, u32::from(b.byte()), w),
                        "omote_character_set_expression",
                    );
                }
                4 => {
                    let name = names[b.byte() as usize % names.len()];
                    let w = b.float();
                    check(
                        omote_character_set_expression_named(handle, name.as_ptr(), w),
                        "omote_character_set_expression_named",
                    );
                }
                5 => {
                    let (y, p) = (b.float(), b.float());
                    check(
                        omote_character_set_gaze(handle, y, p),
                        "omote_character_set_gaze",
                    );
                }
                6 => {
                    let (x, y, z) = (b.float(), b.float(), b.float());
                    check(
                        omote_character_set_gaze_target(handle, x, y, z),
                        "omote_character_set_gaze_target",
                    );
                }
                7 => {
                    let (x, y, z, w) = (b.float(), b.float(), b.float(), b.float());
                    check(
                        omote_character_set_head(handle, x, y, z, w),
                        "omote_character_set_head",
                    );
                }
                8 => check(
                    omote_character_set_eye_mode(handle, u32::from(b.byte() % 6)),
                    "omote_character_set_eye_mode",
                ),
                9 => {
                    // The timed requests: a blink, an announced eye change, a calibration.
                    let (which, d) = (b.byte() % 3, b.float());
                    match which {
                        0 => check(
                            omote_character_request_blink(handle, d),
                            "omote_character_request_blink",
                        ),
                        1 => check(
                            omote_character_announce_eye_change(handle, d),
                            "omote_character_announce_eye_change",
                        ),
                        _ => check(
                            omote_character_calibrate_tracking(handle, d),
                            "omote_character_calibrate_tracking",
                        ),
                    }
                }
                10 => check(
                    omote_character_enable_tracking(handle),
                    "omote_character_enable_tracking",
                ),
                11 => {
                    let mut scores = [0.0f32; 52];
                    for s in scores.iter_mut().take(usize::from(b.byte() % 53)) {
                        *s = b.float();
                    }
                    let n = b.count(52);
                    let head = [b.float(), b.float(), b.float(), b.float()];
                    let hp = if b.byte() % 2 == 0 {
                        std::ptr::null()
                    } else {
                        head.as_ptr()
                    };
                    check(
                        omote_character_set_tracked(handle, scores.as_ptr(), n, hp),
                        "omote_character_set_tracked",
                    );
                }
                12 => {
                    let mut h = 0;
                    let n = u32::from(b.byte()) * 16;
                    let rate = f64::from(b.float()) * 96_000.0;
                    let s = omote_analyse_voice(samples.as_ptr(), n, rate, &mut h);
                    check(s, "omote_analyse_voice");
                    if s == OmoteStatus::Ok {
                        pool.live.push(h);
                    }
                }
                13 => {
                    let glow = [OmoteWeight {
                        channel: u32::from(b.byte()),
                        weight: b.float(),
                    }];
                    let n = u32::from(b.byte() % 2);
                    let track = pool.of(&mut b, TRACK);
                    check(
                        omote_character_say(handle, track, glow.as_ptr(), n),
                        "omote_character_say",
                    );
                }
                14 => check(omote_character_cut(handle), "omote_character_cut"),
                15 => {
                    let v = [
                        b.float(),
                        b.float(),
                        b.float(),
                        b.float(),
                        b.float(),
                        b.float(),
                    ];
                    let n = b.count(6);
                    check(
                        omote_character_set_live_vowels(
                            handle,
                            v.as_ptr(),
                            n.min(6),
                            u32::from(b.byte() % 2),
                        ),
                        "omote_character_set_live_vowels",
                    );
                }
                16 => {
                    let mut h = 0;
                    let rate =
                        [48_000.0, 44_100.0, 16_000.0, 0.0, f64::NAN, 1e9][b.byte() as usize % 6];
                    let s = omote_voice_stream_new(rate, u32::from(b.byte() % 2), &mut h);
                    check(s, "omote_voice_stream_new");
                    if s == OmoteStatus::Ok {
                        pool.live.push(h);
                    }
                }
                17 => {
                    let stream = pool.of(&mut b, STREAM);
                    let n = u32::from(b.byte()) * 8;
                    check(
                        omote_character_hear(handle, stream, samples.as_ptr(), n),
                        "omote_character_hear",
                    );
                }
                18 => {
                    let mut written = 0;
                    let n = u32::from(b.byte()) * 8;
                    let cap = u32::from(b.byte()) * 8;
                    let s = omote_voice_stream_push(
                        handle,
                        samples.as_ptr(),
                        n,
                        frames.as_mut_ptr(),
                        cap,
                        &mut written,
                    );
                    check(s, "omote_voice_stream_push");
                    if s == OmoteStatus::Ok {
                        finite(&frames[..written as usize * 8], "stream frames");
                    }
                }
                19 => {
                    let dt = b.float();
                    let mut count = 0;
                    let mut events = OmoteFrameEvents::default();
                    if omote_character_channel_count(handle, &mut count) == OmoteStatus::Ok {
                        let n = b.count(count).min(256);
                        let s = omote_character_step(
                            handle,
                            dt,
                            weights.as_mut_ptr(),
                            std::ptr::null_mut(),
                            n,
                            rotations.as_mut_ptr(),
                            &mut events,
                        );
                        check(s, "omote_character_step");
                        if s == OmoteStatus::Ok {
                            stepped += 1;
                            let w = &weights[..n as usize];
                            finite(w, "weights");
                            assert!(
                                w.iter().all(|v| (0.0..=1.0).contains(v)),
                                "weights out of 0–1"
                            );
                            finite(&rotations, "rotations");
                        }
                    } else {
                        check(omote_character_update(handle, dt), "omote_character_update");
                    }
                }
                20 => {
                    let mut h = 0;
                    let s = omote_speaker_new(&mut h);
                    check(s, "omote_speaker_new");
                    pool.live.push(h);
                    let n = u32::from(b.byte()) * 16;
                    check(
                        omote_speaker_add_line(h, samples.as_ptr(), n, 48_000.0),
                        "omote_speaker_add_line",
                    );
                }
                21 => {
                    let mut seed = [0.0f32; 13];
                    let s =
                        omote_speaker_voice_seed(handle, seed.as_mut_ptr(), b.count(13).min(13));
                    check(s, "omote_speaker_voice_seed");
                    let stream = pool.of(&mut b, STREAM);
                    check(
                        omote_voice_stream_start_from_speaker(stream, handle),
                        "omote_voice_stream_start_from_speaker",
                    );
                }
                22 => {
                    // Free whatever the handle is (any kind; most calls fail on kind).
                    let frees: [(extern "C" fn(u64) -> OmoteStatus, &str); 6] = [
                        (omote_avatar_free, "omote_avatar_free"),
                        (omote_character_free, "omote_character_free"),
                        (omote_track_free, "omote_track_free"),
                        (omote_speaker_free, "omote_speaker_free"),
                        (omote_voice_stream_free, "omote_voice_stream_free"),
                        (omote_voice_file_free, "omote_voice_file_free"),
                    ];
                    for (free, name) in frees {
                        let s = free(handle);
                        check(s, name);
                        if s == OmoteStatus::Ok {
                            pool.live.retain(|h| *h != handle);
                            pool.freed.push(handle);
                        }
                    }
                }
                24 => {
                    // Load one of the files (a good one, one cut short, one that is not
                    // audio, one that is not there), then read any voice file's parts
                    // with right and wrong counts.
                    let mut h = 0;
                    let path = &voice_paths()[usize::from(b.byte() % 4)];
                    let s = omote_voice_file_load(path.as_ptr(), &mut h);
                    check(s, "omote_voice_file_load");
                    if s == OmoteStatus::Ok {
                        pool.live.push(h);
                    }
                    let file = if b.byte() % 2 == 0 { handle } else { h };
                    let (mut n, mut rate, mut warned) = (0, 0.0, 0);
                    let s = omote_voice_file_info(file, &mut n, &mut rate, &mut warned);
                    check(s, "omote_voice_file_info");
                    let n = if s == OmoteStatus::Ok { n } else { 16 };
                    let mut out = vec![0.0f32; n as usize + 1];
                    let s = omote_voice_file_samples(file, out.as_mut_ptr(), b.count(n));
                    check(s, "omote_voice_file_samples");
                    if s == OmoteStatus::Ok {
                        finite(&out, "omote_voice_file_samples");
                    }
                    let mut len = 0;
                    let mut buf = [0 as std::ffi::c_char; 256];
                    let cap = [0, 8, 256][usize::from(b.byte() % 3)];
                    check(
                        omote_voice_file_warning(file, buf.as_mut_ptr(), cap, &mut len),
                        "omote_voice_file_warning",
                    );
                }
                _ => {
                    let mut len = 0;
                    let mut buf = [0 as std::ffi::c_char; 16];
                    let cap = u32::from(b.byte() % 17);
                    check(
                        omote_avatar_channel_name(
                            handle,
                            u32::from(b.byte()),
                            buf.as_mut_ptr(),
                            cap,
                            &mut len,
                        ),
                        "omote_avatar_channel_name",
                    );
                    let name = CString::new("happy").unwrap();
                    let mut id = 0;
                    check(
                        omote_character_channel_id(handle, name.as_ptr(), &mut id),
                        "omote_character_channel_id",
                    );
                }
            }
        }
    }
    for h in pool.live {
        {
            let frees: [extern "C" fn(u64) -> OmoteStatus; 6] = [
                omote_avatar_free,
                omote_character_free,
                omote_track_free,
                omote_speaker_free,
                omote_voice_stream_free,
                omote_voice_file_free,
            ];
            for free in frees {
                let _ = free(h);
            }
        }
    }
    stepped
}
