// The three-vrm adapter: attach an omote Face to a loaded @pixiv/three-vrm VRM (≥ 3).
// It reads the VRM's expressions (with their binary and override settings) and lookAt,
// and every frame writes the face through the VrmApplier (vrm-applier.js): the weights
// (after omote's override rules; three-vrm's own rules are switched off so they do not
// act twice), the head (split over neck and head) and the eyes (bone lookAt) or the
// look expressions.
import { Face, init } from './index.js';
import { VrmApplier } from './vrm-applier.js';

export { VrmApplier };

const MODES = { none: 'none', block: 'block', blend: 'blend' };

/** The rig description of a three-vrm VRM: its expression list and lookAt. */
export function rigFromVrm(vrm) {
  const em = vrm.expressionManager;
  const expressions = (em ? em.expressions : []).map((e) => ({
    name: e.expressionName,
    isBinary: !!e.isBinary,
    overrideBlink: MODES[e.overrideBlink] || 'none',
    overrideLookAt: MODES[e.overrideLookAt] || 'none',
    overrideMouth: MODES[e.overrideMouth] || 'none',
  }));
  const rig = { name: (vrm.meta && (vrm.meta.name || vrm.meta.title)) || 'vrm', presets: false, arkit: false, expressions };
  const applier = vrm.lookAt && vrm.lookAt.applier;
  if (applier && applier.rangeMapHorizontalInner) {
    const map = (m) => ({ inputMaxValue: m.inputMaxValue, outputScale: m.outputScale });
    rig.lookAt = {
      type: applier.type === 'expression' ? 'expression' : 'bone',
      offsetFromHeadBone: vrm.lookAt.offsetFromHeadBone ? vrm.lookAt.offsetFromHeadBone.toArray() : [0, 0, 0],
      rangeMapHorizontalInner: map(applier.rangeMapHorizontalInner),
      rangeMapHorizontalOuter: map(applier.rangeMapHorizontalOuter),
      rangeMapVerticalDown: map(applier.rangeMapVerticalDown),
      rangeMapVerticalUp: map(applier.rangeMapVerticalUp),
    };
  }
  return rig;
}

/** A Face driving a VRM. `update(dt)` advances the face and poses the model (call it
 *  before `vrm.update(dt)`). */
export class VrmFace {
  constructor(vrm, face) {
    this.vrm = vrm;
    this.face = face;
    const em = vrm.expressionManager;
    if (!em || em.expressions.length === 0) {
      throw new Error('VrmFace: this VRM has no expressions: there is nothing to drive');
    }
    this.applier = new VrmApplier(vrm);
  }

  /** Advances by `dt` seconds and writes the face into the VRM. */
  update(dt) {
    const { face, applier } = this;
    face.update(dt);
    applier.setWeights(face.channels, face.weights());
    const r = face.rotations();
    applier.setHead(r, 0);
    applier.setEye('leftEye', r, 4);
    applier.setEye('rightEye', r, 8);
    return this;
  }
}

/** Loads omote (once) and attaches a new Face to `vrm`. */
export async function attach(vrm, { seed = 1, wasm } = {}) {
  await init(wasm);
  return new VrmFace(vrm, new Face(rigFromVrm(vrm), { seed }));
}
