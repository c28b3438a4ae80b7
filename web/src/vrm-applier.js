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

/** Drives one VRM. Construction switches three-vrm's own rules off: read the VRM's
 *  override settings and lookAt (`rigFromVrm`) before. */
export class VrmApplier {
  constructor(vrm) {
    this.vrm = vrm;
    const em = vrm.expressionManager;
    // The weights given are after the override rules, applied once in omote's core;
    // three-vrm's rules would damp them a second time (a blink under `happy` 0.6 at
    // 0.16 instead of 0.4), and they differ from the VRM 1.0 specification omote
    // follows (three-vrm also sums a category's own members).
    if (em) {
      for (const e of em.expressions) {
        e.overrideBlink = 'none';
        e.overrideLookAt = 'none';
        e.overrideMouth = 'none';
      }
    }
    // The eye rotations given drive the eyes; three-vrm's lookAt must not apply its own.
    if (vrm.lookAt) {
      vrm.lookAt.autoUpdate = false;
      vrm.lookAt.applier = { applyYawPitch() {} };
    }
    /** VRM 0.x models face -Z in three-vrm: rotations are mirrored to match. */
    this.flip = !!(vrm.meta && vrm.meta.metaVersion === '0');
    /** The normalised bones the model has, with their rest rotations. */
    this.bones = {};
    for (const name of BONES) {
      const node = vrm.humanoid && vrm.humanoid.getNormalizedBoneNode(name);
      if (node) this.bones[name] = { node, rest: node.quaternion.clone() };
    }
    const any = Object.values(this.bones)[0];
    this._q = any ? any.rest.clone() : null;
    this._half = any ? any.rest.clone() : null;
    this._id = any ? any.rest.clone().identity() : null;
  }

  /** Whether the model has the expression `name`. */
  has(name) {
    const em = this.vrm.expressionManager;
    return !!(em && em.getExpression(name));
  }

  /** Sets one expression's weight (one the model lacks is ignored). */
  setWeight(name, weight) {
    const em = this.vrm.expressionManager;
    if (em) em.setValue(name, weight);
  }

  /** Sets `weights[i]` on expression `names[i]` for every i. */
  setWeights(names, weights) {
    const em = this.vrm.expressionManager;
    if (!em) return;
    for (let i = 0; i < names.length; i++) em.setValue(names[i], weights[i]);
  }

  /** The head rotation (x y z w at `q[at..at + 4]`, omote's frame: +Z forward), split
   *  evenly over neck and head when the model has a neck (like omote's VRMA writer). */
  setHead(q, at = 0) {
    const { neck, head } = this.bones;
    if (!head) return;
    const r = this._rotation(q, at);
    if (neck) {
      this._half.copy(this._id).slerp(r, 0.5);
      neck.node.quaternion.copy(neck.rest).multiply(this._half);
      head.node.quaternion.copy(head.rest).multiply(this._half);
    } else {
      head.node.quaternion.copy(head.rest).multiply(r);
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
