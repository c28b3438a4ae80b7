//! An expression's `eyeClosure` measured from the model's own shapes against its blink:
//! on the built-in avatar, read back as any user's file would be, the measure agrees
//! with the closures the generator knows from its own shape parameters; models with no
//! morph binds measure nothing.

use omote_vrm::VrmModel;
use omote_vrm::avatar::{AvatarStyle, generate_styled, rig_of};

#[test]
fn eye_closure_from_shapes_matches_what_the_generator_knows() {
    for style in [&AvatarStyle::DEFAULT, &AvatarStyle::SECOND] {
        // A user's file: read as any VRM, no generator knowledge.
        let model = VrmModel::from_slice(&generate_styled(style), "avatar.vrm").unwrap();
        let known = rig_of(&model);
        let measured = model.to_rig().unwrap();
        let mut closing = 0;
        for e in &model.expressions {
            let k = known.info(known.channel(&e.name).unwrap()).desc.eye_closure;
            let m = measured
                .info(measured.channel(&e.name).unwrap())
                .desc
                .eye_closure;
            assert!((k - m).abs() < 0.02, "{}: measured {m}, known {k}", e.name);
            assert_eq!(m, e.eye_closure, "{}", e.name);
            closing += usize::from(m > 0.05);
        }
        // The emotions and the squints close the eyes some; the blinks are blinks.
        assert!(closing >= 6, "{closing}");
        for blink in ["blink", "blinkLeft", "eyeBlinkLeft", "eyeBlinkRight"] {
            assert_eq!(model.expression(blink).unwrap().eye_closure, 0.0, "{blink}");
        }
        assert!(model.expression("relaxed").unwrap().eye_closure > 0.5);
        assert_eq!(model.expression("aa").unwrap().eye_closure, 0.0);
    }
}

/// The shared samples bind no morph targets to their blinks (texture and material
/// blinks): reading them measures nothing and fails nothing — a smoke test on real
/// files, not a test of the measure (the one above and the unit tests are).
#[test]
fn samples_with_no_blink_morphs_read_and_measure_nothing() {
    let Some(dir) = omote_testdata::shared_data("vrm") else {
        return;
    };
    for name in [
        "simple_morph.vrm",
        "debug_robot.vrm",
        "VRMC_vrm_expressions_isBinary_Overrides.vrm",
    ] {
        let model = VrmModel::read(dir.join(name)).unwrap();
        for e in &model.expressions {
            assert_eq!(e.eye_closure, 0.0, "{name} {}", e.name);
        }
    }
}
