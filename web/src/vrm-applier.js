// Applying a face to a @pixiv/three-vrm VRM (≥ 3): the one place that writes omote's
// output into three-vrm. The npm package's VrmFace uses it, and so do the pages of
// `omote view` and `omote live`, which serve this very file from the binary
// (crates/omote-cli/src/viewer_assets.rs, `/vrm-applier.js`). It imports nothing (no
// `three`): its quaternions are clones of the VRM's own.
//
// Per frame: expression weights by name (after omote's override rules, look
// expressions among them when the model looks with expressions), the head rotation
// split over the normalised neck and head bones, and the eye rotations on the
// normalised eye bones; then the caller runs vrm.update(dt).

const BONES = ['neck', 'head', 'leftEye', 'rightEye'];

const HEAD_MODES = new Set(['additive', 'replace']);
const LOOK_AT_MODES = new Set(['omote', 'keep']);

// The VRM's own override settings of each expression while an applier has them switched
// off (`rigFromVrm` reads them here, so a VRM attached again keeps its rules), and the
// applier driving each VRM (two would both write it, and the second would read the
// first's switched-off rules as the model's).
const SAVED_OVERRIDES = new WeakMap();
const DRIVEN = new WeakMap();

/** An expression's own override settings (`overrideBlink`, `overrideLookAt`,
 *  `overrideMouth`), as the VRM has them even while an applier has switched them off. */
export function ownOverrides(expression) {
  return SAVED_OVERRIDES.get(expression) || expression;
}

/** Drives one VRM. Construction switches three-vrm's own override rules off (their
 *  settings stay readable through `ownOverrides`, which `rigFromVrm` uses), and
 *  `release()` switches them, and three-vrm's lookAt, back on. One applier per VRM at a
 *  time: a second is refused until the first is released.
 *
 *  `head`: 'replace' (default) sets neck and head to their rest rotation times omote's;
 *  'additive' puts omote's rotation on top of the pose the app gave the bones this
 *  frame (an AnimationMixer, a VRMA), or, when nothing wrote them since, on the pose it
 *  was put on last time — so it never accumulates.
 *  `lookAt`: 'omote' (default) switches three-vrm's lookAt off and the eyes are set by
 *  `setEye`; 'keep' leaves `vrm.lookAt` (its `target`, `autoUpdate`, its applier) to
 *  three-vrm and adds the offset given to `setGazeOffset` (omote's saccades) to the
 *  yaw and pitch it applies. */
export class VrmApplier {
  constructor(vrm, options) {
    const { head = 'replace', lookAt = 'omote' } = options ?? {};
    if (!HEAD_MODES.has(head)) throw new Error(`VrmApplier: head \`${head}\` is not 'additive' or 'replace'`);
    if (!LOOK_AT_MODES.has(lookAt)) throw new Error(`VrmApplier: lookAt \`${lookAt}\` is not 'omote' or 'keep'`);
    if (DRIVEN.has(vrm)) {
      throw new Error('VrmApplier: this VRM is already driven (an attached VrmFace or a VrmApplier): free() or release() that one first');
    }
    this.vrm = vrm;
    /** 'replace' or 'additive'. */
    this.headMode = head;
    /** 'omote' or 'keep'. */
    this.lookAtMode = lookAt;
    const em = vrm.expressionManager;
    // The weights given are after the override rules, applied once in omote's core;
    // three-vrm's rules would damp them a second time (a blink under `happy` 0.6 at
    // 0.16 instead of 0.4), and they differ from the VRM 1.0 specification omote
    // follows (three-vrm also sums a category's own members).
    if (em) {
      for (const e of em.expressions) {
        // Kept once: a construction that failed half way must not save its own 'none'.
        if (!SAVED_OVERRIDES.has(e)) {
          SAVED_OVERRIDES.set(e, { overrideBlink: e.overrideBlink, overrideLookAt: e.overrideLookAt, overrideMouth: e.overrideMouth });
        }
        e.overrideBlink = 'none';
        e.overrideLookAt = 'none';
        e.overrideMouth = 'none';
      }
    }
    this._offset = { yaw: 0, pitch: 0 };
    // What `release` puts back: three-vrm's lookAt as it was.
    this._lookAtBefore = vrm.lookAt ? { autoUpdate: vrm.lookAt.autoUpdate, applier: vrm.lookAt.applier } : null;
    if (vrm.lookAt && lookAt === 'omote') {
      // The eye rotations given drive the eyes; three-vrm's lookAt must not apply its own.
      vrm.lookAt.autoUpdate = false;
      vrm.lookAt.applier = { applyYawPitch() {} };
    } else if (vrm.lookAt && vrm.lookAt.applier) {
      // three-vrm's lookAt stays; its applier (bones or expressions) gets the offset on
      // top. The instance's method is wrapped, so the applier keeps its range maps.
      const applier = vrm.lookAt.applier;
      const own = Object.prototype.hasOwnProperty.call(applier, 'applyYawPitch') ? applier.applyYawPitch : null;
      this._lookAtBefore.applyYawPitch = own;
      const apply = applier.applyYawPitch.bind(applier);
      const offset = this._offset;
      applier.applyYawPitch = (yaw, pitch) => apply(yaw + offset.yaw, pitch + offset.pitch);
    }
    /** VRM 0.x models face -Z in three-vrm: rotations are mirrored to match. */
    this.flip = !!(vrm.meta && vrm.meta.metaVersion === '0');
    /** The normalised bones the model has, with their rest rotations. */
    this.bones = {};
    for (const name of BONES) {
      const node = vrm.humanoid && vrm.humanoid.getNormalizedBoneNode(name);
      // `base`: the pose omote's rotation goes on ('additive'); `written`: what was last
      // written, to tell whether something else (an animation) wrote the bone since.
      if (node) this.bones[name] = { node, rest: node.quaternion.clone(), base: node.quaternion.clone(), written: null };
    }
    const any = Object.values(this.bones)[0];
    this._q = any ? any.rest.clone() : null;
    this._half = any ? any.rest.clone() : null;
    this._id = any ? any.rest.clone().identity() : null;
    DRIVEN.set(vrm, this);
  }

  /** Gives the VRM back to three-vrm: its expressions' own override rules and its lookAt
   *  (target, autoUpdate, applier) work again; the pose and weights stay as last
   *  written. Another applier (a new `attach`) may then drive it. Again: nothing. */
  release() {
    if (DRIVEN.get(this.vrm) !== this) return;
    const em = this.vrm.expressionManager;
    if (em) {
      for (const e of em.expressions) {
        const own = SAVED_OVERRIDES.get(e);
        if (own) Object.assign(e, own);
        SAVED_OVERRIDES.delete(e);
      }
    }
    const la = this.vrm.lookAt;
    const before = this._lookAtBefore;
    if (la && before) {
      la.autoUpdate = before.autoUpdate;
      la.applier = before.applier;
      if (this.lookAtMode === 'keep' && before.applier) {
        if (before.applyYawPitch) before.applier.applyYawPitch = before.applyYawPitch;
        else delete before.applier.applyYawPitch;
      }
    }
    DRIVEN.delete(this.vrm);
  }

  /** With `lookAt: 'keep'`: the offset (degrees, omote's convention: yaw > 0 toward the
   *  avatar's left, pitch > 0 down) added to what three-vrm's lookAt applies at the next
   *  `vrm.update`. */
  setGazeOffset(yawDeg, pitchDeg) {
    // three-vrm's pitch is > 0 up.
    this._offset.yaw = yawDeg;
    this._offset.pitch = -pitchDeg;
    // Its lookAt applies only when its angles changed: this makes it apply each frame,
    // through its public setter.
    const la = this.vrm.lookAt;
    if (la && this.lookAtMode === 'keep') la.yaw = la.yaw;
  }

  /** Whether the model has the expression `name`. */
  has(name) {
    const em = this.vrm.expressionManager;
    return !!(em && em.getExpression(name));
  }

  /** Sets one expression's weight (one the model lacks is ignored; a weight that is not
   *  a finite number is refused, so three-vrm never gets a NaN). */
  setWeight(name, weight) {
    checkWeight('VrmApplier.setWeight', name, weight);
    const em = this.vrm.expressionManager;
    if (em) em.setValue(name, weight);
  }

  /** Sets `weights[i]` on expression `names[i]` for every i (checked as `setWeight`). */
  setWeights(names, weights) {
    if (!names || !weights || names.length !== weights.length) {
      throw new TypeError('VrmApplier.setWeights: one weight per name is needed');
    }
    for (let i = 0; i < names.length; i++) checkWeight('VrmApplier.setWeights', names[i], weights[i]);
    const em = this.vrm.expressionManager;
    if (!em) return;
    for (let i = 0; i < names.length; i++) em.setValue(names[i], weights[i]);
  }

  /** The head rotation (x y z w at `q[at..at + 4]`, omote's frame: +Z forward), split
   *  evenly over neck and head when the model has a neck (like omote's VRMA writer), on
   *  the rest pose ('replace') or on the app's current pose ('additive'). */
  setHead(q, at = 0) {
    const { neck, head } = this.bones;
    if (!head) return;
    const r = this._rotation(q, at);
    if (neck) {
      this._half.copy(this._id).slerp(r, 0.5);
      this._put(neck, this._half);
      this._put(head, this._half);
    } else {
      this._put(head, r);
    }
  }

  _put(bone, r) {
    const { node } = bone;
    let base = bone.rest;
    if (this.headMode === 'additive') {
      if (!bone.written || !node.quaternion.equals(bone.written)) bone.base.copy(node.quaternion);
      base = bone.base;
    }
    node.quaternion.copy(base).multiply(r);
    if (this.headMode === 'additive') {
      if (!bone.written) bone.written = node.quaternion.clone();
      bone.written.copy(node.quaternion);
    }
  }

  /** One eye's rotation (`bone`: 'leftEye' or 'rightEye'; x y z w at `q[at..at + 4]`). */
  setEye(bone, q, at = 0) {
    const b = this.bones[bone];
    if (b) b.node.quaternion.copy(b.rest).multiply(this._rotation(q, at));
  }

  _rotation(q, at) {
    const r = this._q.set(q[at], q[at + 1], q[at + 2], q[at + 3]);
    if (this.flip) { r.x = -r.x; r.z = -r.z; }
    return r;
  }
}

function checkWeight(what, name, weight) {
  if (typeof weight !== 'number' || !Number.isFinite(weight)) {
    throw new TypeError(`${what}: the weight of \`${name}\` is ${weight}, not a finite number`);
  }
}
