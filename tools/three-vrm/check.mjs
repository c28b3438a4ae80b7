// Test helper: load omote's output in the real three-vrm and print what it sees as JSON.
//
//   node check.mjs avatar MODEL.vrm
//       expressions (name, preset?, morph targets moved at weight 1), lookAt, humanoid, meta
//   node check.mjs vrma MODEL.vrm ANIM.vrma T1 [T2 ...]
//       the animation applied to the model, sampled at each time: every expression's
//       value as the clip sets it (`expressions`, before three-vrm's override rules),
//       the weight three-vrm applies to its binds after its override rules (`applied`),
//       lookAt yaw/pitch, head and neck normalised rotations
//
// Used by crates/omote-vrm/tests (versions pinned in package-lock.json; run `npm ci`).
import { readFileSync } from 'node:fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { VRMLoaderPlugin, VRMExpressionPresetName } from '@pixiv/three-vrm';
import { VRMAnimationLoaderPlugin, createVRMAnimationClip, VRMLookAtQuaternionProxy } from '@pixiv/three-vrm-animation';

const warnings = [];
const origWarn = console.warn;
console.warn = (...args) => { warnings.push(args.map(String).join(' ')); };

// Node has no DOM to decode images: textures load as empty placeholders (we check
// structure and animation, not pixels).
class StubTextures {
  constructor() { this.name = 'omote_stub_textures'; }
  loadTexture() { return Promise.resolve(new THREE.Texture()); }
}

async function load(path) {
  const loader = new GLTFLoader();
  loader.register(() => new StubTextures());
  loader.register((p) => new VRMLoaderPlugin(p));
  loader.register((p) => new VRMAnimationLoaderPlugin(p));
  const buf = readFileSync(path);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  return loader.parseAsync(ab, '');
}

function influences(scene) {
  const out = [];
  scene.traverse((o) => {
    if (o.isMesh && o.morphTargetInfluences) out.push(...o.morphTargetInfluences);
  });
  return out;
}

async function avatar(path) {
  const gltf = await load(path);
  const vrm = gltf.userData.vrm;
  if (!vrm) throw new Error('no VRM in ' + path);
  const presets = new Set(Object.values(VRMExpressionPresetName));
  const em = vrm.expressionManager;
  const expressions = [];
  for (const e of em ? em.expressions : []) {
    for (const x of em.expressions) em.setValue(x.expressionName, 0);
    em.setValue(e.expressionName, 1);
    em.update();
    vrm.scene.updateMatrixWorld(true);
    const moved = influences(vrm.scene).filter((v) => v > 0.5).length;
    expressions.push({
      name: e.expressionName,
      preset: presets.has(e.expressionName),
      isBinary: e.isBinary,
      overrideBlink: e.overrideBlink,
      overrideLookAt: e.overrideLookAt,
      overrideMouth: e.overrideMouth,
      binds: e._binds.length,
      morphTargetsMoved: moved,
    });
  }
  const la = vrm.lookAt;
  const map = (m) => ({ inputMaxValue: m.inputMaxValue, outputScale: m.outputScale });
  let meshes = 0;
  let morphTargets = 0;
  vrm.scene.traverse((o) => {
    if (o.isMesh) {
      meshes += 1;
      morphTargets += o.morphTargetInfluences ? o.morphTargetInfluences.length : 0;
    }
  });
  return {
    metaVersion: vrm.meta.metaVersion,
    meta: vrm.meta,
    expressions,
    lookAt: la && {
      type: la.applier.constructor.type,
      offsetFromHeadBone: la.offsetFromHeadBone.toArray(),
      rangeMapHorizontalInner: map(la.applier.rangeMapHorizontalInner),
      rangeMapHorizontalOuter: map(la.applier.rangeMapHorizontalOuter),
      rangeMapVerticalDown: map(la.applier.rangeMapVerticalDown),
      rangeMapVerticalUp: map(la.applier.rangeMapVerticalUp),
    },
    humanBones: Object.keys(vrm.humanoid.humanBones).filter((b) => vrm.humanoid.getRawBoneNode(b)),
    meshes,
    morphTargets,
    warnings,
  };
}

async function vrma(modelPath, animPath, times) {
  const vrm = (await load(modelPath)).userData.vrm;
  const anims = (await load(animPath)).userData.vrmAnimations;
  if (!anims || anims.length === 0) throw new Error('no VRM animation in ' + animPath);
  const proxy = new VRMLookAtQuaternionProxy(vrm.lookAt);
  proxy.name = 'lookAtQuaternionProxy';
  vrm.scene.add(proxy);
  const clip = createVRMAnimationClip(anims[0], vrm);
  const mixer = new THREE.AnimationMixer(vrm.scene);
  mixer.clipAction(clip).play();
  const em = vrm.expressionManager;
  // What the face shows: expressionManager.update() hands every bind of an expression
  // its weight after the override rules (VRMExpression.applyWeight); a probe bind added
  // to each expression records that number as three-vrm computes it.
  const applied = {};
  for (const e of em ? em.expressions : []) {
    const name = e.expressionName;
    e.addBind({
      applyWeight(w) { applied[name] = w; },
      clearAppliedWeight() { applied[name] = 0; },
    });
  }
  const samples = [];
  for (const t of times) {
    mixer.setTime(t);
    if (em) em.update();
    const expressions = {};
    for (const e of em ? em.expressions : []) expressions[e.expressionName] = em.getValue(e.expressionName);
    const q = (bone) => {
      const n = vrm.humanoid.getNormalizedBoneNode(bone);
      return n ? n.quaternion.toArray() : null;
    };
    samples.push({ t, expressions, applied: { ...applied }, yaw: vrm.lookAt.yaw, pitch: vrm.lookAt.pitch, head: q('head'), neck: q('neck') });
  }
  return {
    duration: clip.duration,
    tracks: clip.tracks.map((t) => t.name),
    expressionTracks: [...anims[0].expressionTracks.preset.keys(), ...anims[0].expressionTracks.custom.keys()],
    hasLookAtTrack: anims[0].lookAtTrack != null,
    samples,
    warnings,
  };
}

const [mode, ...args] = process.argv.slice(2);
let result;
if (mode === 'avatar') result = await avatar(args[0]);
else if (mode === 'vrma') result = await vrma(args[0], args[1], args.slice(2).map(Number));
else {
  origWarn('usage: node check.mjs avatar MODEL.vrm | vrma MODEL.vrm ANIM.vrma T...');
  process.exit(2);
}
process.stdout.write(JSON.stringify(result) + '\n');
