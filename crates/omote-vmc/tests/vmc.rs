//! The codec against an independent OSC implementation (rosc), round trips, and hostile
//! packets.

use glam::Quat;
use omote_vmc::osc::{OscArg, OscValue, OscWriter, parse_packet};
use omote_vmc::{
    BlendNames, BonePose, VmcError, VmcFrameWriter, VmcReceiver, VmcRecorder, channel_from_wire,
};
use rosc::{OscBundle, OscMessage, OscPacket, OscTime, OscType};

const CHANNELS: [&str; 8] = [
    "aa",
    "ih",
    "blink",
    "happy",
    "sad",
    "surprised",
    "jawOpen",
    "eyeBlinkLeft",
];

/// The frame's one packet (a frame of few channels fits one).
fn only<'a>(mut packets: impl ExactSizeIterator<Item = &'a [u8]>) -> Vec<u8> {
    assert_eq!(packets.len(), 1);
    packets.next().unwrap().to_vec()
}

/// Every message of a frame's packets, in order.
fn frame_messages<'a>(
    packets: impl Iterator<Item = &'a [u8]>,
) -> Result<Vec<omote_vmc::osc::OscMessage>, VmcError> {
    let mut all = Vec::new();
    for p in packets {
        all.extend(parse_packet(p)?);
    }
    Ok(all)
}

fn frame() -> (Vec<f32>, BonePose) {
    (
        vec![0.1, 0.2, 0.3, 0.9, 0.0, 0.5, 0.75, 1.0],
        BonePose {
            head: Some(Quat::from_euler(glam::EulerRot::YXZ, 0.3, -0.2, 0.1)),
            left_eye: Some(Quat::from_rotation_y(0.1)),
            right_eye: Some(Quat::from_rotation_y(0.12)),
        },
    )
}

#[test]
fn rosc_reads_our_bundle_with_vrm0_names() {
    let (w, pose) = frame();
    let mut writer = VmcFrameWriter::new(CHANNELS, BlendNames::Vrm0);
    let bytes = only(writer.write(1.25, &w, &pose));
    let (rest, packet) = rosc::decoder::decode_udp(&bytes).expect("rosc decodes it");
    assert!(rest.is_empty());
    let OscPacket::Bundle(b) = packet else {
        panic!("not a bundle")
    };
    let msgs: Vec<OscMessage> = b
        .content
        .into_iter()
        .map(|p| match p {
            OscPacket::Message(m) => m,
            OscPacket::Bundle(_) => panic!("nested"),
        })
        .collect();
    assert_eq!(msgs[0].addr, "/VMC/Ext/OK");
    assert_eq!(msgs[1].args, vec![OscType::Float(1.25)]);
    let blends: Vec<(String, f32)> = msgs
        .iter()
        .filter(|m| m.addr == "/VMC/Ext/Blend/Val")
        .map(|m| match (&m.args[0], &m.args[1]) {
            (OscType::String(s), OscType::Float(v)) => (s.clone(), *v),
            other => panic!("{other:?}"),
        })
        .collect();
    let names: Vec<&str> = blends.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "A",
            "I",
            "Blink",
            "Joy",
            "Sorrow",
            "Surprised",
            // VRM 0.x perfect-sync clips are spelt in upper camel case.
            "JawOpen",
            "EyeBlinkLeft"
        ]
    );
    for ((_, v), w) in blends.iter().zip(&w) {
        assert_eq!(v, w);
    }
    let apply = msgs
        .iter()
        .position(|m| m.addr == "/VMC/Ext/Blend/Apply")
        .unwrap();
    // The bones first, then the values, and Apply ends the frame.
    assert_eq!(apply, msgs.len() - 1);
    assert_eq!(apply, 2 + 3 + CHANNELS.len());
    let head = msgs
        .iter()
        .find(|m| m.addr == "/VMC/Ext/Bone/Pos" && m.args[0] == OscType::String("Head".into()))
        .unwrap();
    assert_eq!(head.args.len(), 8);
    let f: Vec<f32> = head.args[1..]
        .iter()
        .map(|a| match a {
            OscType::Float(x) => *x,
            other => panic!("{other:?}"),
        })
        .collect();
    // Unity space: X mirrored, so the quaternion's y and z flip.
    let h = pose.head.unwrap();
    let expected = [h.x, -h.y, -h.z, h.w];
    for (got, want) in f[3..].iter().zip(expected) {
        assert!((got - want).abs() < 1e-6, "{f:?} vs {expected:?}");
    }
}

#[test]
fn our_receiver_reads_rosc_packets() {
    let msg = |addr: &str, args: Vec<OscType>| {
        OscPacket::Message(OscMessage {
            addr: addr.into(),
            args,
        })
    };
    let q = Quat::from_rotation_x(0.4);
    let inner = OscPacket::Bundle(OscBundle {
        timetag: OscTime::from((0, 1)),
        content: vec![
            msg(
                "/VMC/Ext/Blend/Val",
                vec![OscType::String("Joy".into()), OscType::Float(0.7)],
            ),
            msg(
                "/VMC/Ext/Blend/Val",
                vec![OscType::String("jawOpen".into()), OscType::Float(0.2)],
            ),
        ],
    });
    let packet = OscPacket::Bundle(OscBundle {
        timetag: OscTime::from((0, 1)),
        content: vec![
            msg("/VMC/Ext/T", vec![OscType::Float(3.5)]),
            inner,
            msg("/VMC/Ext/Blend/Apply", vec![]),
            msg(
                "/VMC/Ext/Bone/Pos",
                vec![
                    OscType::String("Head".into()),
                    OscType::Float(0.0),
                    OscType::Float(0.1),
                    OscType::Float(0.0),
                    OscType::Float(q.x),
                    OscType::Float(-q.y),
                    OscType::Float(-q.z),
                    OscType::Float(q.w),
                ],
            ),
            // Types VMC does not use must not derail the rest.
            msg(
                "/VMC/Ext/Cam",
                vec![
                    OscType::Double(1.0),
                    OscType::Bool(true),
                    OscType::Blob(vec![1, 2, 3]),
                ],
            ),
        ],
    });
    let bytes = rosc::encoder::encode(&packet).unwrap();
    let msgs = parse_packet(&bytes).unwrap();
    assert_eq!(msgs.len(), 6, "nested bundles are flattened");
    let mut r = VmcReceiver::new();
    assert_eq!(r.apply(&msgs).all_used().unwrap(), 1);
    assert_eq!(r.time(), Some(3.5));
    assert_eq!(r.blend("Joy"), Some(0.7));
    assert_eq!(channel_from_wire("Joy"), "happy");
    let (_, head) = r.bone("Head").unwrap();
    assert!(head.dot(q).abs() > 1.0 - 1e-6);
}

#[test]
fn blend_values_wait_for_apply() {
    let mut w = OscWriter::new();
    w.begin_bundle();
    w.message(
        "/VMC/Ext/Blend/Val",
        &[OscArg::Str("A"), OscArg::Float(0.4)],
    );
    let mut r = VmcReceiver::new();
    r.apply(&parse_packet(w.bytes()).unwrap())
        .all_used()
        .unwrap();
    assert_eq!(r.blend("A"), None);
    w.clear();
    w.message("/VMC/Ext/Blend/Apply", &[]);
    r.apply(&parse_packet(w.bytes()).unwrap())
        .all_used()
        .unwrap();
    assert_eq!(r.blend("A"), Some(0.4));
}

#[test]
fn round_trip_every_channel_and_vrm1_names() {
    let (w, pose) = frame();
    let mut writer = VmcFrameWriter::new(CHANNELS, BlendNames::Vrm1);
    let mut r = VmcReceiver::new();
    r.apply(&frame_messages(writer.write(0.0, &w, &pose)).unwrap())
        .all_used()
        .unwrap();
    for (c, v) in CHANNELS.iter().zip(&w) {
        assert_eq!(r.blend(c), Some(*v), "{c}");
    }
    for (name, q) in [
        ("Head", pose.head.unwrap()),
        ("LeftEye", pose.left_eye.unwrap()),
        ("RightEye", pose.right_eye.unwrap()),
    ] {
        let (_, got) = r.bone(name).unwrap();
        assert!(got.dot(q) > 1.0 - 1e-6, "{name}");
    }
}

/// A face with `happy` 0.6 (`overrideBlink: blend` on the standard rig) over a full
/// blink: a VRM 0.x receiver (no override rules) gets what the face shows, `Blink` 0.4; a
/// VRM 1.0 receiver, which applies the rules itself, gets the input `blink` 1.0 (sent
/// 0.4, it would show 0.16).
#[test]
fn weights_follow_the_receivers_override_rules() {
    use omote_vmc::BlendWeights;
    let rig = std::sync::Arc::new(omote_core::Rig::standard());
    let mut face = omote_core::Face::new(rig.clone(), omote_core::FaceConfig::raw(), 1);
    face.layer_mut(omote_core::Face::BASE)
        .set(rig.channel("happy").unwrap(), 0.6);
    face.layer_mut(omote_core::Face::BASE)
        .set(rig.channel("blink").unwrap(), 1.0);
    let state = face.update(1.0 / 60.0, &omote_core::FaceInputs::default());
    let names: Vec<&str> = rig.channels().map(|(id, _)| rig.channel_name(id)).collect();
    let sent = |names_on_wire: BlendNames, wire_name: &str| {
        let weights = BlendWeights::for_names(names_on_wire);
        let mut writer = VmcFrameWriter::new(names.iter().copied(), names_on_wire);
        let bytes = writer.write(
            0.0,
            weights.pick(&state.expressions, &state.input_expressions),
            &BonePose::default(),
        );
        let mut r = VmcReceiver::new();
        r.apply(&frame_messages(bytes).unwrap()).all_used().unwrap();
        r.blend(wire_name).unwrap()
    };
    assert!((sent(BlendNames::Vrm0, "Blink") - 0.4).abs() < 1e-6);
    assert_eq!(sent(BlendNames::Vrm1, "blink"), 1.0);
    assert_eq!(sent(BlendNames::Vrm0, "Joy"), 0.6);
    assert_eq!(sent(BlendNames::Vrm1, "happy"), 0.6);
}

#[test]
fn bad_values_are_sanitised_not_sent() {
    let mut writer = VmcFrameWriter::new(["aa", "ih"], BlendNames::Vrm1);
    let pose = BonePose {
        head: Some(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0)),
        ..BonePose::default()
    };
    let msgs = frame_messages(writer.write(f32::NAN, &[f32::NAN, 7.0], &pose)).unwrap();
    for m in &msgs {
        for a in &m.args {
            if let OscValue::Float(x) = a {
                assert!(x.is_finite(), "{m:?}");
            }
        }
    }
    let mut r = VmcReceiver::new();
    r.apply(&msgs).all_used().unwrap();
    assert_eq!(r.blend("aa"), Some(0.0));
    assert_eq!(r.blend("ih"), Some(1.0));
}

#[test]
fn hostile_packets_give_errors_not_panics() {
    let (w, pose) = frame();
    let mut writer = VmcFrameWriter::new(CHANNELS, BlendNames::Vrm0);
    let good = only(writer.write(0.0, &w, &pose));
    // Every truncation and every single-byte corruption of a real packet.
    for n in 0..good.len() {
        let _ = parse_packet(&good[..n]);
        let mut bad = good.clone();
        bad[n] ^= 0xA5;
        if let Ok(msgs) = parse_packet(&bad) {
            let _ = VmcReceiver::new().apply(&msgs);
        }
    }
    // Deeply nested bundles.
    let mut nested = Vec::new();
    for _ in 0..100 {
        let mut b = b"#bundle\0".to_vec();
        b.extend_from_slice(&1u64.to_be_bytes());
        b.extend_from_slice(&(nested.len() as u32).to_be_bytes());
        b.extend_from_slice(&nested);
        nested = b;
    }
    assert!(matches!(
        parse_packet(&nested),
        Err(VmcError::Malformed {
            reason: "bundles nested too deep",
            ..
        })
    ));
    // A known address with the wrong arguments names the address.
    let mut w = OscWriter::new();
    w.clear();
    w.message("/VMC/Ext/Blend/Val", &[OscArg::Float(1.0)]);
    let err = VmcReceiver::new()
        .apply(&parse_packet(w.bytes()).unwrap())
        .all_used()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "/VMC/Ext/Blend/Val: expected arguments sf, got f"
    );
    // An element size that overflows.
    let mut b = b"#bundle\0".to_vec();
    b.extend_from_slice(&1u64.to_be_bytes());
    b.extend_from_slice(&u32::MAX.to_be_bytes());
    assert!(parse_packet(&b).is_err());
}

#[test]
fn recorder_is_bounded_against_a_hostile_clock() {
    let (w, pose) = frame();
    let mut writer = VmcFrameWriter::new(CHANNELS, BlendNames::Vrm1);
    let mut r = VmcReceiver::new();
    let mut rec = VmcRecorder::new(60.0);
    for k in 0..30 {
        let t = k as f32 / 60.0;
        r.apply(&frame_messages(writer.write(t, &w, &pose)).unwrap())
            .all_used()
            .unwrap();
        rec.advance(f64::from(r.time().unwrap()), &r);
    }
    assert_eq!(rec.frames(), 30);
    // `/VMC/Ext/T 1e30`: at most MAX_FILL_FRAMES more, the rest skipped, and again for
    // every further packet at that time or beyond (never a loop that fills forever).
    for t in [1e30f32, 1e30, f32::MAX, 3e38] {
        r.apply(&frame_messages(writer.write(t, &w, &pose)).unwrap())
            .all_used()
            .unwrap();
        let added = rec.advance(f64::from(r.time().unwrap()), &r);
        assert!(
            added <= VmcRecorder::MAX_FILL_FRAMES,
            "{added} frames for t = {t}"
        );
    }
    assert!(rec.frames() <= 30 + 4 * VmcRecorder::MAX_FILL_FRAMES);
    assert!(rec.skipped_frames() > 1_000_000);
    // Not even a float: ignored.
    assert_eq!(rec.advance(f64::INFINITY, &r), 0);
    assert_eq!(rec.advance(f64::NAN, &r), 0);
    // The performer restarts at 0: the recording carries on at once.
    let before = rec.frames();
    for k in 0..10 {
        let t = k as f32 / 60.0;
        r.apply(&frame_messages(writer.write(t, &w, &pose)).unwrap())
            .all_used()
            .unwrap();
        rec.advance(f64::from(r.time().unwrap()), &r);
    }
    assert_eq!(rec.frames(), before + 10);
    let anim = rec.finish();
    assert!(anim.validate().is_ok(), "{:?}", anim.validate());
    assert_eq!(anim.format, omote_core::anim::ANIM_FORMAT);
    assert_eq!(anim.expressions.get("happy").unwrap()[0], 0.9);
}

/// A frame of a rig with ARKit's shapes is more than one Ethernet frame: it goes in
/// bundles of at most 1472 bytes that rosc reads, with the messages in the frame's order
/// and `Blend/Apply` after every value.
#[test]
fn a_large_frame_goes_in_packets_of_at_most_1472_bytes() {
    let rig = omote_core::Rig::standard();
    let names: Vec<&str> = rig.channels().map(|(id, _)| rig.channel_name(id)).collect();
    let weights: Vec<f32> = (0..names.len()).map(|i| i as f32 / 70.0).collect();
    let (_, pose) = frame();
    let mut writer = VmcFrameWriter::new(names.iter().copied(), BlendNames::Vrm0);
    let packets: Vec<Vec<u8>> = writer
        .write(2.5, &weights, &pose)
        .map(<[u8]>::to_vec)
        .collect();
    assert!(packets.len() >= 3, "{} packets", packets.len());
    let mut addresses = Vec::new();
    for p in &packets {
        assert!(p.len() <= omote_vmc::MAX_PACKET_BYTES, "{} bytes", p.len());
        let (rest, packet) = rosc::decoder::decode_udp(p).expect("rosc decodes each");
        assert!(rest.is_empty());
        let OscPacket::Bundle(b) = packet else {
            panic!("not a bundle")
        };
        for e in b.content {
            let OscPacket::Message(m) = e else {
                panic!("nested")
            };
            addresses.push(m.addr);
        }
    }
    let val = "/VMC/Ext/Blend/Val";
    assert_eq!(addresses[..2], ["/VMC/Ext/OK", "/VMC/Ext/T"]);
    assert_eq!(addresses[2..5], ["/VMC/Ext/Bone/Pos"; 3]);
    assert_eq!(addresses.iter().filter(|a| *a == val).count(), names.len());
    // Apply ends the frame, in its last packet.
    assert_eq!(addresses.last().unwrap(), "/VMC/Ext/Blend/Apply");
    assert!(addresses[5..addresses.len() - 1].iter().all(|a| a == val));
    // Received in order, the frame is whole.
    let mut r = VmcReceiver::new();
    for p in &packets {
        r.apply(&parse_packet(p).unwrap()).all_used().unwrap();
    }
    assert_eq!(r.blends().len(), names.len());
    assert_eq!(r.blend("Joy"), Some(weights[0]));
    // Writing again reuses the buffers: the same bytes.
    let again: Vec<Vec<u8>> = writer
        .write(2.5, &weights, &pose)
        .map(<[u8]>::to_vec)
        .collect();
    assert_eq!(again, packets);
}

/// What a receiver cannot use it skips, and uses the rest of the packet (the protocol's
/// rule): arguments after the needed ones, an unknown address; a message it cannot use
/// (an integer where the weight goes, a name that is not a string) is skipped and
/// reported, not the packet lost.
#[test]
fn the_receiver_skips_what_it_cannot_use_and_applies_the_rest() {
    let msg = |address: &str, args: Vec<OscValue>| omote_vmc::osc::OscMessage {
        address: address.into(),
        args,
    };
    let s = |t: &str| OscValue::Str(t.into());
    let mut r = VmcReceiver::new();
    let report = r.apply(&[
        msg("/VMC/Ext/T", vec![OscValue::Float(3.0), OscValue::Int(7)]),
        msg(
            "/VMC/Ext/Blend/Val",
            vec![s("A"), OscValue::Float(0.5), OscValue::Float(9.0)],
        ),
        msg("/VMC/Ext/Blend/Val", vec![s("Joy"), OscValue::Int(1)]),
        msg(
            "/VMC/Ext/Blend/Val",
            vec![OscValue::Int(3), OscValue::Float(0.2)],
        ),
        msg(
            "/VMC/Ext/Blend/Val",
            vec![s("E"), OscValue::Float(f32::NAN)],
        ),
        msg("/VMC/Ext/Someday/New", vec![s("x")]),
        msg("/VMC/Ext/Blend/Apply", vec![]),
    ]);
    assert_eq!(
        (report.applies, report.skipped, report.non_finite),
        (1, 2, 1)
    );
    let why = report.first_problem.unwrap().to_string();
    assert!(why.contains("expected arguments sf, got si"), "{why}");
    assert_eq!(r.time(), Some(3.0));
    assert_eq!(r.blend("A"), Some(0.5));
    assert_eq!(r.blend("Joy"), None);
    assert_eq!(r.blend("E"), Some(0.0));
}

/// A message larger than a packet (a name of 2000 bytes) goes alone, and the messages
/// around it in packets of their own; the frame still ends with its Apply.
#[test]
fn a_message_larger_than_a_packet_goes_alone() {
    let long = "x".repeat(2000);
    let mut writer = VmcFrameWriter::new(["aa", long.as_str(), "ih"], BlendNames::Vrm1);
    let packets: Vec<Vec<u8>> = writer
        .write(0.0, &[0.1, 0.2, 0.3], &BonePose::default())
        .map(<[u8]>::to_vec)
        .collect();
    let messages: Vec<Vec<omote_vmc::osc::OscMessage>> =
        packets.iter().map(|p| parse_packet(p).unwrap()).collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(messages[1].len(), 1);
    assert!(packets[1].len() > omote_vmc::MAX_PACKET_BYTES);
    assert!(packets[0].len() <= omote_vmc::MAX_PACKET_BYTES);
    assert!(packets[2].len() <= omote_vmc::MAX_PACKET_BYTES);
    assert_eq!(messages[2].last().unwrap().address, "/VMC/Ext/Blend/Apply");
    let mut r = VmcReceiver::new();
    for m in &messages {
        r.apply(m).all_used().unwrap();
    }
    assert_eq!(r.blend(&long), Some(0.2));
    assert_eq!(r.blend("ih"), Some(0.3));
}

/// With a VRM 0.x model's own channels, names that are not presets go as the model spells
/// them (its receiver has the same clips); otherwise ARKit's go in 0.x perfect-sync case.
#[test]
fn a_models_own_spelling_can_be_kept() {
    let wire = |writer: &mut VmcFrameWriter| -> Vec<String> {
        frame_messages(writer.write(0.0, &[0.5, 0.5], &BonePose::default()))
            .unwrap()
            .into_iter()
            .filter(|m| m.address == "/VMC/Ext/Blend/Val")
            .map(|m| match &m.args[0] {
                OscValue::Str(s) => s.clone(),
                other => panic!("{other:?}"),
            })
            .collect()
    };
    let mut converted = VmcFrameWriter::new(["happy", "jawOpen"], BlendNames::Vrm0);
    assert_eq!(wire(&mut converted), ["Joy", "JawOpen"]);
    let mut kept =
        VmcFrameWriter::new(["happy", "jawOpen"], BlendNames::Vrm0).keep_channel_spelling();
    assert_eq!(wire(&mut kept), ["Joy", "jawOpen"]);
}
