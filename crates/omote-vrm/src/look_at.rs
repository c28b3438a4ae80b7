//! lookAt: gaze type, eye offset and the four range maps, read into the core's
//! [`LookAtDesc`]. Defaults follow three-vrm: `inputMaxValue` 90, `outputScale` 10 for
//! bone gaze and 1 for expression gaze, offset `[0, 0.06, 0]`.

use omote_core::rig::{LookAtDesc, LookAtRangeMap, LookAtType};

use crate::document::Document;
use crate::error::VrmError;
use crate::schema::{vrm0, vrmc_vrm};

/// Default `offsetFromHeadBone` when a file has none (three-vrm's).
pub const DEFAULT_OFFSET_FROM_HEAD_BONE: [f32; 3] = [0.0, 0.06, 0.0];

fn default_output_scale(kind: LookAtType) -> f32 {
    match kind {
        LookAtType::Bone => 10.0,
        LookAtType::Expression => 1.0,
    }
}

fn range_map(
    doc: &Document,
    field: String,
    input_max_value: Option<f32>,
    output_scale: Option<f32>,
    default_scale: f32,
    names: (&str, &str),
) -> Result<LookAtRangeMap, VrmError> {
    let m = LookAtRangeMap::new(
        input_max_value.unwrap_or(90.0),
        output_scale.unwrap_or(default_scale),
    );
    for (name, v) in [(names.0, m.input_max_value), (names.1, m.output_scale)] {
        if !v.is_finite() {
            return Err(doc.invalid(format!("{field}.{name}"), v as f64, "must be finite"));
        }
        if v < 0.0 {
            return Err(doc.invalid(format!("{field}.{name}"), v as f64, "must not be negative"));
        }
    }
    Ok(m)
}

/// Read `VRMC_vrm.lookAt` (`None` when the file has no lookAt, as three-vrm).
pub(crate) fn from_v1(
    doc: &Document,
    schema: Option<&vrmc_vrm::LookAt>,
) -> Result<Option<LookAtDesc>, VrmError> {
    let Some(s) = schema else {
        return Ok(None);
    };
    let kind = match s.kind.as_deref() {
        None | Some("bone") => LookAtType::Bone,
        Some("expression") => LookAtType::Expression,
        Some(other) => {
            return Err(doc.bad_name(
                "VRMC_vrm.lookAt.type".into(),
                other,
                "is not one of bone, expression".into(),
            ));
        }
    };
    let offset = s
        .offset_from_head_bone
        .unwrap_or(DEFAULT_OFFSET_FROM_HEAD_BONE);
    doc.finite("VRMC_vrm.lookAt.offsetFromHeadBone", &offset)?;
    let scale = default_output_scale(kind);
    let map = |name: &str, m: &Option<vrmc_vrm::RangeMap>| {
        let m = m.unwrap_or_default();
        range_map(
            doc,
            format!("VRMC_vrm.lookAt.{name}"),
            m.input_max_value,
            m.output_scale,
            scale,
            ("inputMaxValue", "outputScale"),
        )
    };
    Ok(Some(LookAtDesc {
        kind,
        offset_from_head_bone: offset,
        range_map_horizontal_inner: map("rangeMapHorizontalInner", &s.range_map_horizontal_inner)?,
        range_map_horizontal_outer: map("rangeMapHorizontalOuter", &s.range_map_horizontal_outer)?,
        range_map_vertical_down: map("rangeMapVerticalDown", &s.range_map_vertical_down)?,
        range_map_vertical_up: map("rangeMapVerticalUp", &s.range_map_vertical_up)?,
    }))
}

/// Read VRM 0.x `firstPerson` lookAt settings: `lookAtTypeName` `Bone` / `BlendShape`;
/// each degree map's `curve` is dropped, `xRange` → `inputMaxValue`, `yRange` →
/// `outputScale`. `firstPersonBoneOffset` becomes `offsetFromHeadBone` with z negated
/// (0.x models face −Z), as three-vrm does. `None` when there is no `firstPerson`.
pub(crate) fn from_v0(
    doc: &Document,
    schema: Option<&vrm0::FirstPerson>,
) -> Result<Option<LookAtDesc>, VrmError> {
    let Some(s) = schema else {
        return Ok(None);
    };
    let kind = match s.look_at_type_name.as_deref() {
        Some("BlendShape") => LookAtType::Expression,
        None | Some("Bone") => LookAtType::Bone,
        Some(other) => {
            return Err(doc.bad_name(
                "VRM.firstPerson.lookAtTypeName".into(),
                other,
                "is not one of Bone, BlendShape".into(),
            ));
        }
    };
    let offset = match s.first_person_bone_offset {
        Some(o) => [
            o.x.unwrap_or(0.0),
            o.y.unwrap_or(0.06),
            0.0 - o.z.unwrap_or(0.0),
        ],
        None => DEFAULT_OFFSET_FROM_HEAD_BONE,
    };
    doc.finite("VRM.firstPerson.firstPersonBoneOffset", &offset)?;
    let scale = default_output_scale(kind);
    let map = |name: &str, m: &Option<vrm0::DegreeMap>| {
        let m = m.clone().unwrap_or_default();
        range_map(
            doc,
            format!("VRM.firstPerson.{name}"),
            m.x_range,
            m.y_range,
            scale,
            ("xRange", "yRange"),
        )
    };
    Ok(Some(LookAtDesc {
        kind,
        offset_from_head_bone: offset,
        range_map_horizontal_inner: map("lookAtHorizontalInner", &s.look_at_horizontal_inner)?,
        range_map_horizontal_outer: map("lookAtHorizontalOuter", &s.look_at_horizontal_outer)?,
        range_map_vertical_down: map("lookAtVerticalDown", &s.look_at_vertical_down)?,
        range_map_vertical_up: map("lookAtVerticalUp", &s.look_at_vertical_up)?,
    }))
}
