//! Cost of one face of a live session after its input arrived: the tracking result
//! into the inbox and out again, the driver's update (retargeting, automatic eyes, the
//! VRM rules), the page's JSON frame and the VMC bundle — everything the session adds
//! to the tracker's time (issue 14: "camera frame → output = tracker time + ≤ 2 ms").

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use omote_core::{DriverInputs, FaceConfig, FaceDriver, Quat, RetargetConfig, TrackedFace};
use omote_lipsync::Profile;
use omote_live::{LiveStatus, PcmLipsync, SampleFormat, TrackingInbox, ViewFrameWriter};
use omote_vmc::{BlendNames, BonePose, VmcFrameWriter};

fn bench(c: &mut Criterion) {
    let rig = Arc::new(omote_vrm::avatar::rig());
    let mut driver = FaceDriver::new(rig.clone(), FaceConfig::default(), 1)
        .with_tracking(RetargetConfig::default())
        .unwrap();
    let inbox = TrackingInbox::new(Duration::from_secs(1));
    let sender = inbox.sender("vmc-in");
    let mut view = ViewFrameWriter::new(&rig, "/model.vrm", vec!["vmc-in".into()]);
    let channels: Vec<&str> = rig.channels().map(|(id, _)| rig.channel_name(id)).collect();
    let mut vmc = VmcFrameWriter::new(channels.iter().copied(), BlendNames::Vrm0);
    let mut face = TrackedFace::default();
    let status = LiveStatus {
        source: Some(0),
        ..LiveStatus::default()
    };
    let mut k = 0u64;
    c.bench_function("live_face_after_input_70_channels", |b| {
        b.iter(|| {
            k += 1;
            let phase = (k % 120) as f32 / 120.0;
            face.blendshapes.set("jawOpen", phase);
            face.head = Some(Quat::from_rotation_y(0.3 * phase));
            sender.publish(Some(face));
            let now = inbox.current(Instant::now());
            let state = driver.update(
                1.0 / 60.0,
                &DriverInputs {
                    tracking: now.face.as_ref(),
                    ..DriverInputs::default()
                },
            );
            let text_len = view.frame(k as f64 / 60.0, state, &status).len();
            let pose = BonePose {
                head: Some(state.head),
                left_eye: Some(state.left_eye),
                right_eye: Some(state.right_eye),
            };
            let packet_len = vmc.write(k as f32 / 60.0, &state.expressions, &pose).len();
            black_box((text_len, packet_len))
        })
    });
}

/// The live voice pipeline (`omote lipsync live`, the microphone of `omote live`): 10 s
/// of 48 kHz s16 PCM read 10 ms at a time, resampled to 16 kHz and analysed. Throughput
/// in 48 kHz input samples per second (÷ 48 000 = × real time).
fn voice(c: &mut Criterion) {
    let pcm: Vec<u8> = omote_testdata::buzz(48_000, 10.0, 0.5..9.5)
        .iter()
        .flat_map(|s| s.to_le_bytes())
        .collect();
    let mut group = c.benchmark_group("live_voice");
    group.throughput(criterion::Throughput::Elements(pcm.len() as u64 / 2));
    group.bench_function("pcm_10s_48k_10ms_reads", |b| {
        b.iter_batched(
            || {
                PcmLipsync::new("bench", SampleFormat::S16le, 1, 48_000, Profile::builtin())
                    .unwrap()
            },
            |mut pipe| {
                let mut frames = Vec::with_capacity(1024);
                for read in pcm.chunks(960) {
                    pipe.push(read, &mut frames);
                }
                pipe.finish(&mut frames);
                black_box(frames.len())
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench, voice);
criterion_main!(benches);
