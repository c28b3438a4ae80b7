// The three-vrm adapter: attach an omote Face to a loaded @pixiv/three-vrm VRM (≥ 3).
// It reads the VRM's expressions (with their binary and override settings) and lookAt,
// and every frame writes the weights (after omote's override rules; three-vrm's own
// rules are switched off so they do not act twice), the head (split over neck and head)
// and the eyes (bone lookAt) or the look expressions.
import { Face, init } from './index.js';

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
    for (const e of em.expressions) {
      e.overrideBlink = 'none';
      e.overrideLookAt = 'none';
      e.overrideMouth = 'none';
    }
    if (vrm.lookAt) {
      vrm.lookAt.autoUpdate = false;
      vrm.lookAt.applier = { applyYawPitch() {} };
    }
    this.flip = !!(vrm.meta && vrm.meta.metaVersion === '0'); // VRM 0.x faces -Z in three-vrm
    this.bones = {};
    for (const name of ['neck', 'head', 'leftEye', 'rightEye']) {
      const node = vrm.humanoid && vrm.humanoid.getNormalizedBoneNode(name);
      if (node) this.bones[name] = { node, rest: node.quaternion.clone() };
    }
    this._q = this.bones.head ? this.bones.head.rest.clone() : null;
    this._id = this._q ? this._q.clone().identity() : null;
  }

  /** Advances by `dt` seconds and writes the face into the VRM. */
  update(dt) {
    const { face, vrm, bones, flip } = this;
    face.update(dt);
    const w = face.weights();
    const em = vrm.expressionManager;
    for (let i = 0; i < face.channels.length; i++) em.setValue(face.channels[i], w[i]);
    const r = face.rotations();
    const q = this._q;
    if (q) {
      const set = (bone, k, share) => {
        const b = bones[bone];
        if (!b) return;
        q.set(r[k], r[k + 1], r[k + 2], r[k + 3]);
        if (flip) { q.x = -q.x; q.z = -q.z; }
        if (share !== 1) q.slerp(this._id, 1 - share);
        b.node.quaternion.copy(b.rest).multiply(q);
      };
      if (bones.neck) { set('neck', 0, 0.5); set('head', 0, 0.5); } else set('head', 0, 1);
      set('leftEye', 4, 1);
      set('rightEye', 8, 1);
    }
    return this;
  }
}

/** Loads omote (once) and attaches a new Face to `vrm`. */
export async function attach(vrm, { seed = 1, wasm } = {}) {
  await init(wasm);
  return new VrmFace(vrm, new Face(rigFromVrm(vrm), { seed }));
}
