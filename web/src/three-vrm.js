// The three-vrm adapter: attach an omote Face to a loaded @pixiv/three-vrm VRM (≥ 3).
// It reads the VRM's expressions (with their binary and override settings) and lookAt,
// and every frame writes the face through the VrmApplier (vrm-applier.js): the weights
// (after omote's override rules; three-vrm's own rules are switched off so they do not
// act twice), the head (split over neck and head) and the eyes (bone lookAt) or the
// look expressions — composed with the app's own animation as `attach`'s options say.
import { Face, init, settings } from './index.js';
import { VrmApplier, ownOverrides } from './vrm-applier.js';

export { VrmApplier };

const MODES = { none: 'none', block: 'block', blend: 'blend' };

/** The expressions omote drives by itself: the mouth and the blinks (and the look
 *  expressions while it moves the eyes). */
const OWN = ['aa', 'ih', 'ou', 'ee', 'oh', 'blink', 'blinkLeft', 'blinkRight'];
const LOOKS = ['lookUp', 'lookDown', 'lookLeft', 'lookRight'];

/** Refuses what is not a three-vrm VRM, naming `what` (the call): the common mistakes are
 *  the GLTF itself, or a GLTF loaded without `VRMLoaderPlugin` (`userData.vrm` undefined). */
function checkVrm(what, vrm) {
  if (!vrm || typeof vrm !== 'object' || !('expressionManager' in vrm) || !('humanoid' in vrm)) {
    const got = vrm === undefined ? 'undefined (was the GLTF loaded with VRMLoaderPlugin?)'
      : vrm === null ? 'null'
        : vrm.userData && vrm.userData.vrm ? 'a GLTF (pass gltf.userData.vrm)'
          : `a ${typeof vrm} without a VRM's expressionManager and humanoid`;
    throw new TypeError(`${what}: expected a three-vrm VRM (gltf.userData.vrm), got ${got}`);
  }
}

/** The rig description of a three-vrm VRM: its expression list and lookAt. */
export function rigFromVrm(vrm) {
  checkVrm('rigFromVrm', vrm);
  const em = vrm.expressionManager;
  const expressions = (em ? em.expressions : []).map((e) => {
    // The model's own settings, also while an attached face has three-vrm's switched off.
    const own = ownOverrides(e);
    return {
      name: e.expressionName,
      isBinary: !!e.isBinary,
      overrideBlink: MODES[own.overrideBlink] || 'none',
      overrideLookAt: MODES[own.overrideLookAt] || 'none',
      overrideMouth: MODES[own.overrideMouth] || 'none',
    };
  });
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

const HEAD = new Set(['additive', 'replace', 'off']);
const LOOK_AT = new Set(['omote', 'keep']);
const EXPRESSIONS = new Set(['shared', 'all']);

/** A Face driving a VRM. `update(dt)` advances the face and poses the model: call it
 *  after the app's own animation (`mixer.update(dt)`) and before `vrm.update(dt)`.
 *  Options (see `attach`): `head`, `lookAt`, `expressions`. */
export class VrmFace {
  constructor(vrm, face, options) {
    const { head = 'additive', lookAt = 'omote', expressions = 'shared' } = settings('VrmFace', options, ['head', 'lookAt', 'expressions']);
    checkVrm('VrmFace', vrm);
    if (!(face instanceof Face)) throw new TypeError('VrmFace: face must be an omote Face (attach(vrm) makes both)');
    if (!HEAD.has(head)) throw new Error(`attach: head \`${head}\` is not 'additive', 'replace' or 'off'`);
    if (!LOOK_AT.has(lookAt)) throw new Error(`attach: lookAt \`${lookAt}\` is not 'omote' or 'keep'`);
    if (!EXPRESSIONS.has(expressions)) throw new Error(`attach: expressions \`${expressions}\` is not 'shared' or 'all'`);
    this.vrm = vrm;
    this.face = face;
    const em = vrm.expressionManager;
    if (!em || em.expressions.length === 0) {
      throw new Error('VrmFace: this VRM has no expressions: there is nothing to drive');
    }
    /** The options in use. */
    this.options = { head, lookAt, expressions };
    try {
      this.applier = new VrmApplier(vrm, { head: head === 'off' ? 'replace' : head, lookAt });
    } catch (e) {
      throw new Error(String(e.message).replace(/^VrmApplier:/, 'attach:'));
    }
    this._own = new Set(lookAt === 'omote' ? [...OWN, ...LOOKS] : OWN);
    this._looks = new Set(LOOKS);
    this._acted = -1;
    this._write = null;
    this._read = null;
  }

  /** Which channels are written, and which expressions are read from the app: redone
   *  when the face acts a new expression. */
  _plan() {
    const { face } = this;
    const all = this.options.expressions === 'all';
    const keep = this.options.lookAt === 'keep';
    this._write = [];
    this._read = [];
    face.channels.forEach((name, i) => {
      if (all || this._own.has(name) || face.acted.has(name)) this._write.push(i);
      // three-vrm's lookAt writes the look expressions itself: neither the app's nor ours.
      else if (!(keep && this._looks.has(name))) this._read.push(name);
    });
    if (all && keep) this._write = this._write.filter((i) => !this._looks.has(face.channels[i]));
    this._acted = face.acted.size;
  }

  /** Advances by `dt` seconds (any dt: see `Face.update`) and writes the face into the
   *  VRM. */
  update(dt) {
    if (this._freed) throw new Error('VrmFace.update: this VrmFace was freed');
    const { face, applier, vrm } = this;
    if (this._acted !== face.acted.size) this._plan();
    const em = vrm.expressionManager;
    // The app's own expressions go into the acting, so omote's override rules see them
    // (a blink under the app's `happy` is damped as the VRM says); their values stay the
    // app's: they are not written back.
    for (const name of this._read) face._face.setExpression(name, em.getValue(name) ?? 0);
    face.update(dt);
    const w = face.weights();
    for (const i of this._write) em.setValue(face.channels[i], w[i]);
    const r = face.rotations();
    if (this.options.head !== 'off') applier.setHead(r, 0);
    if (this.options.lookAt === 'omote') {
      applier.setEye('leftEye', r, 4);
      applier.setEye('rightEye', r, 8);
    } else {
      // The eyes are three-vrm's; omote's own motion (saccades) goes on top.
      const g = face.gaze();
      applier.setGazeOffset(g[0], g[1]);
    }
    return this;
  }

  /** Frees the face's wasm memory and gives the VRM back to three-vrm (swapping
   *  avatars, leaving a page): the VRM keeps its last pose and weights, its own override
   *  rules and lookAt work again, and it may be attached again; `update` then says it
   *  was freed; `free` again does nothing. */
  free() {
    if (this._freed) return;
    this.face.free();
    this.applier.release();
    this._freed = true;
  }
}

/** Loads omote (once) and attaches a new Face to `vrm`.
 *
 *  - `seed`, `tracking`: the Face's (`new Face(rig, { seed, tracking })`); `wasm`: what
 *    `init` loads.
 *  - `head`: 'additive' (default; omote's head motion on top of the pose the app's
 *    animation gave neck and head this frame), 'replace' (on the rest pose) or 'off'.
 *  - `lookAt`: 'omote' (default; omote moves the eyes, three-vrm's lookAt is off) or
 *    'keep' (three-vrm's `vrm.lookAt` and its `target` stay; omote's saccades are added
 *    to its yaw and pitch).
 *  - `expressions`: 'shared' (default; omote writes the mouth, the blinks, the look
 *    expressions while it moves the eyes, and what is given to `face.setExpression` or
 *    an afterglow; every other expression is the app's — its `setValue` stays, and is
 *    read into omote's acting so the override rules see it) or 'all' (omote writes every
 *    expression every frame). */
export async function attach(vrm, options) {
  const { seed = 1, wasm, head, lookAt, expressions, tracking } = settings('attach', options, ['seed', 'wasm', 'head', 'lookAt', 'expressions', 'tracking']);
  checkVrm('attach', vrm);
  await init(wasm);
  let face;
  try {
    face = new Face(rigFromVrm(vrm), { seed, tracking });
  } catch (e) {
    const message = String(e && e.message ? e.message : e).replace(/^new Face\b/, 'attach');
    throw e instanceof TypeError ? new TypeError(message) : new Error(message);
  }
  try {
    return new VrmFace(vrm, face, { head, lookAt, expressions });
  } catch (e) {
    face.free(); // a bad option: nothing is left behind
    throw e;
  }
}
