// The npm package's three-vrm adapter composed with an app's own animation, in the real
// three-vrm (used by crates/omote-web/tests/compose.rs):
//
//   node compose.mjs REPO MODEL.vrm
//
// The app plays a 30° head turn on the normalised head bone with an AnimationMixer (as
// a VRMA does), looks at a camera through `vrm.lookAt.target`, and sets `sad` 1 on the
// expression manager. omote is attached with { head: 'additive', lookAt: 'keep' } and
// the frames run mixer → omote → vrm.update for 5 s at 60 fps, the target moving from
// the avatar's left to its right halfway. The same model loaded again with plain
// three-vrm (no omote), the same head turn and target is the lookAt reference. Prints one JSON
// report: the head's turn against 30° and omote's own head motion, the lookAt yaw
// against the reference and the eye bones against it (their gap against omote's
// saccades), `sad` and the blinks; and, as controls, the same run with head 'replace'
// and expressions 'all' (the old whole-face behaviour), which must lose the turn and
// `sad`.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { VRMLoaderPlugin } from '@pixiv/three-vrm';

const [repo, model] = process.argv.slice(2);
const omote = await import(pathToFileURL(`${repo}/web/dist/index.js`));
const { attach } = await import(pathToFileURL(`${repo}/web/dist/three-vrm.js`));
await omote.init(readFileSync(`${repo}/web/dist/omote_web_bg.wasm`));

class StubTextures {
  constructor() { this.name = 'omote_stub_textures'; }
  loadTexture() { return Promise.resolve(new THREE.Texture()); }
}

async function load() {
  const loader = new GLTFLoader();
  loader.register(() => new StubTextures());
  loader.register((p) => new VRMLoaderPlugin(p));
  const buf = readFileSync(model);
  const gltf = await loader.parseAsync(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), '');
  return gltf.userData.vrm;
}

const DEG = 180 / Math.PI;
const TURN = 30;
const angle = (a, b) => 2 * Math.acos(Math.min(1, Math.abs(a.dot(b)))) * DEG;

async function run(options) {
  const [vrm, ref] = [await load(), await load()];
  const front = vrm.meta.metaVersion === '0' ? -1 : 1;
  const camera = new THREE.Object3D();
  const head = vrm.humanoid.getNormalizedBoneNode('head');
  const neck = vrm.humanoid.getNormalizedBoneNode('neck');
  const headPos = head.getWorldPosition(new THREE.Vector3());
  // Left of the avatar (its +X for VRM 1.0, −X for 0.x), then right.
  const place = (side) => camera.position.set(side * front * 0.6, headPos.y, front * 1.5);
  place(1);
  // The app's animation: a 30° turn of the head (about +Y), held.
  const turn = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 1, 0), TURN / DEG);
  const clip = new THREE.AnimationClip('turn', 1, [
    new THREE.QuaternionKeyframeTrack('.quaternion', [0, 1], [...turn.toArray(), ...turn.toArray()]),
  ]);
  const mixer = new THREE.AnimationMixer(head);
  mixer.clipAction(clip).play();
  const refMixer = new THREE.AnimationMixer(ref.humanoid.getNormalizedBoneNode('head'));
  refMixer.clipAction(clip).play();
  vrm.lookAt.target = camera;
  ref.lookAt.target = camera;
  const face = await attach(vrm, { seed: 4, ...options });
  const em = vrm.expressionManager;
  const hasSad = !!em.getExpression('sad');
  if (hasSad) em.setValue('sad', 1);
  const out = { maxHeadOffTurnDeg: 0, maxOmoteHeadDeg: 0, maxSaccadeDeg: 0, maxLookAtYawDiff: 0, maxEyeDiffDeg: 0, eyeYawRangeDeg: [Infinity, -Infinity], blinks: 0, frames: 0 };
  const eye = vrm.humanoid.getNormalizedBoneNode('leftEye');
  const refEye = ref.humanoid.getNormalizedBoneNode('leftEye');
  let closed = false;
  const total = new THREE.Quaternion();
  const dt = 1 / 60;
  for (let i = 0; i < 300; i++) {
    if (i === 150) place(-1);
    mixer.update(dt);
    face.update(dt);
    vrm.update(dt);
    refMixer.update(dt);
    ref.update(dt);
    // What a render does before drawing (three-vrm's lookAt reads world matrices).
    vrm.scene.updateMatrixWorld();
    ref.scene.updateMatrixWorld();
    const r = face.face.rotations();
    out.maxOmoteHeadDeg = Math.max(out.maxOmoteHeadDeg, 2 * Math.acos(Math.min(1, Math.abs(r[3]))) * DEG);
    const g = face.face.gaze();
    out.maxSaccadeDeg = Math.max(out.maxSaccadeDeg, Math.hypot(g[0], g[1]));
    total.copy(neck ? neck.quaternion : new THREE.Quaternion()).multiply(head.quaternion);
    out.maxHeadOffTurnDeg = Math.max(out.maxHeadOffTurnDeg, angle(total, turn));
    out.maxLookAtYawDiff = Math.max(out.maxLookAtYawDiff, Math.abs(vrm.lookAt.yaw - ref.lookAt.yaw));
    if (eye && refEye) {
      out.maxEyeDiffDeg = Math.max(out.maxEyeDiffDeg, angle(eye.quaternion, refEye.quaternion));
      const yaw = new THREE.Euler().setFromQuaternion(refEye.quaternion, 'YXZ').y * DEG;
      out.eyeYawRangeDeg = [Math.min(out.eyeYawRangeDeg[0], yaw), Math.max(out.eyeYawRangeDeg[1], yaw)];
    }
    const b = em.getValue('blink') ?? 0;
    if (!closed && b > 0.5) out.blinks++;
    closed = b > 0.5;
    out.frames++;
  }
  const headYaw = new THREE.Euler().setFromQuaternion(total, 'YXZ').y * DEG;
  Object.assign(out, {
    headYawDeg: headYaw,
    lookAtAutoUpdate: vrm.lookAt.autoUpdate,
    lookAtTargetKept: vrm.lookAt.target === camera,
    lookAtYawEnd: vrm.lookAt.yaw,
    refLookAtYawEnd: ref.lookAt.yaw,
    sad: hasSad ? em.getValue('sad') : null,
  });
  return out;
}

const report = {
  model,
  composed: await run({ head: 'additive', lookAt: 'keep' }),
  wholeFace: await run({ head: 'replace', lookAt: 'keep', expressions: 'all' }),
};
console.log(JSON.stringify(report));
