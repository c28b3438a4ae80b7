//! Cost of one face of a live session after its input arrived: the tracking result
//! into the inbox and out again, the driver's update (retargeting, automatic eyes, the
//! VRM rules), the page's JSON frame and the VMC bundle — everything the session adds
//! to the tracker's time (issue 14: "camera frame → output = tracker time + ≤ 2 ms").

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use omote_core::{DriverInputs, FaceConfig, FaceDriver, Quat, RetargetConfig, TrackedFace};
use omote_live::{LiveStatus, TrackingInbox, ViewFrameWriter};
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

criterion_group!(benches, bench);
criterion_main!(benches);
