// omote view: what the anim player (viewer.js) and the scene player (scene.js) share —
// the stage (renderer, lights, an orbit camera), loading a VRM ready to be driven, and
// posing it from an omote anim (docs/anim-format.md) at a time.
//
// Posing, per frame, through the npm package's VrmApplier (web/src/vrm-applier.js,
// served as /vrm-applier.js): every track of what the face shows (`appliedExpressions`,
// after the VRM override rules; `expressions` in anims without it) as weights, with
// three-vrm's own override rules off (see `appliedTracks`), the head track on the
// neck/head bones, the eye tracks on the eye bones (when they move), then vrm.update(dt).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { VRMLoaderPlugin, VRMUtils } from '@pixiv/three-vrm';
import { VrmApplier } from './vrm-applier.js';

export async function fetchOk(url) {
  const res = await fetch(url, { cache: 'no-store' });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}: ${(await res.text()).trim()}`);
  return res;
}

// ---------------------------------------------------------------- anim sampling

/** Frame position of time t: indices and blend factor. */
export function framePos(anim, t) {
  const n = anim.head.length;
  let x = Math.max(0, t * anim.fps);
  const r = Math.round(x);
  if (Math.abs(x - r) < 1e-6) x = r; // exact frame times give exact frame values
  const i0 = Math.min(Math.floor(x), n - 1);
  const i1 = Math.min(i0 + 1, n - 1);
  return { i0, i1, f: i1 === i0 ? 0 : x - i0 };
}

const _qa = new THREE.Quaternion();
const _qb = new THREE.Quaternion();

/** The track's quaternion at `pos` as [x, y, z, w] in `out` (omote's frame). */
export function sampleQuat(track, pos, out) {
  _qa.fromArray(track[pos.i0]);
  _qb.fromArray(track[pos.i1]);
  return _qa.slerp(_qb, pos.f).toArray(out);
}

function moves(track) {
  return track.some((q) => Math.abs(q[0]) + Math.abs(q[1]) + Math.abs(q[2]) > 1e-6);
}

/** What the face shows: the weights after the override rules. Anims without
 *  `appliedExpressions` (version 1, VMC recordings) have them in `expressions`.
 *
 *  The page plays these with three-vrm's override rules off (the VrmApplier switches
 *  them off), rather than the player input with the rules on, so that what three-vrm
 *  shows is exactly `appliedExpressions`: (1) for every model, also where three-vrm's
 *  rules differ from the VRM 1.0 specification omote follows and where the model's
 *  override settings differ from the rig the anim was recorded with; (2) for anims whose
 *  only weights already are after the rules (version 1, VMC recordings), which the rules
 *  would damp a second time; (3) the readout of the most active expressions then lists
 *  what the face shows. The rules are applied once, in omote's core. */
export function appliedTracks(anim) {
  return anim.appliedExpressions || anim.expressions;
}

// ---------------------------------------------------------------- stage

/** Renderer, scene, lights and an orbit camera on `canvas` (drag to orbit, wheel to
 *  zoom, double-click to go back to `orbit.home`). `transparent`: no background, the
 *  canvas keeps its alpha (an OBS browser source). */
export function createStage(canvas, { transparent = false } = {}) {
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, alpha: transparent, premultipliedAlpha: false });
  if (transparent) renderer.setClearColor(0x000000, 0);
  renderer.setPixelRatio(window.devicePixelRatio);
  const scene = new THREE.Scene();
  if (!transparent) scene.background = new THREE.Color(0x20242b);
  const camera = new THREE.PerspectiveCamera(30, 1, 0.01, 100);
  scene.add(new THREE.AmbientLight(0xffffff, 1.2));
  const sun = new THREE.DirectionalLight(0xffffff, 2.0);
  sun.position.set(0.5, 1.5, 2.0);
  scene.add(sun);

  const orbit = { target: new THREE.Vector3(0, 1.5, 0), distance: 1, yaw: 0, pitch: 0, home: null };
  function placeCamera() {
    const { target, distance, yaw, pitch } = orbit;
    camera.position.set(
      target.x + distance * Math.cos(pitch) * Math.sin(yaw),
      target.y + distance * Math.sin(pitch),
      target.z + distance * Math.cos(pitch) * Math.cos(yaw),
    );
    camera.lookAt(target);
  }
  function resize() {
    const w = canvas.clientWidth || window.innerWidth;
    const h = canvas.clientHeight || window.innerHeight;
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(1, h);
    camera.updateProjectionMatrix();
  }
  window.addEventListener('resize', resize);
  resize();

  let drag = null;
  canvas.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, y: e.clientY }; canvas.setPointerCapture(e.pointerId); });
  canvas.addEventListener('pointerup', () => { drag = null; });
  canvas.addEventListener('pointermove', (e) => {
    if (!drag) return;
    orbit.yaw -= (e.clientX - drag.x) * 0.01;
    orbit.pitch = Math.max(-1.4, Math.min(1.4, orbit.pitch + (e.clientY - drag.y) * 0.01));
    drag = { x: e.clientX, y: e.clientY };
    placeCamera();
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    orbit.distance = Math.max(0.05, Math.min(20, orbit.distance * Math.exp(e.deltaY * 0.001)));
    placeCamera();
  }, { passive: false });
  canvas.addEventListener('dblclick', () => { if (orbit.home) Object.assign(orbit, orbit.home); placeCamera(); });

  return { renderer, scene, camera, orbit, placeCamera, render: () => renderer.render(scene, camera) };
}

// ---------------------------------------------------------------- models

/** Load the VRM at `url`, ready to be driven: VRM 0.x turned to face +Z, its
 *  `applier` (a VrmApplier: three-vrm's lookAt and override rules off; `flip`: rotations
 *  are mirrored to match; `bones`: the normalised neck/head/eye bones with their rest
 *  rotations). The raw bones' rest rotations and an id per morphing mesh (for the test
 *  hooks). */
/** Where a camera of vertical field of view `fovDeg` looks at a VRM's face: from the
 *  head bone to the top of the model is about half a head; frame one and a half of
 *  those around a point a little above the head bone (the whole model when it has no
 *  head, or nothing above it). `{ target, distance, box }`. The one framing of the anim
 *  viewer and the live page. */
export function faceFraming(vrm, fovDeg) {
  vrm.scene.updateMatrixWorld(true);
  const box = new THREE.Box3().setFromObject(vrm.scene);
  const size = box.getSize(new THREE.Vector3());
  const head = vrm.humanoid.getRawBoneNode('head');
  const target = new THREE.Vector3();
  let extent = Math.max(size.x, size.y);
  let framedHead = false;
  if (head) {
    head.getWorldPosition(target);
    const above = box.max.y - target.y;
    if (above > 0.05) {
      extent = Math.min(extent, 1.5 * above);
      target.y += 0.45 * above;
      framedHead = true;
    }
  }
  if (!framedHead) box.getCenter(target);
  const fov = THREE.MathUtils.degToRad(fovDeg);
  return { target, distance: (1.1 * extent) / (2 * Math.tan(fov / 2)), box };
}

export async function loadVrm(url) {
  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser));
  const gltf = await loader.parseAsync(await (await fetchOk(url)).arrayBuffer(), '/');
  const vrm = gltf.userData.vrm;
  if (!vrm) throw new Error(`${url} loaded, but it has no VRM extension`);
  const applier = new VrmApplier(vrm);
  if (applier.flip) VRMUtils.rotateVRM0(vrm);
  if (vrm.expressionManager) vrm.expressionManager.resetValues();
  vrm.update(0);

  const inv = new THREE.Quaternion();
  vrm.scene.updateMatrixWorld(true);
  vrm.scene.getWorldQuaternion(inv).invert();
  const rawRest = {};
  for (const name of ['neck', 'head', 'leftEye', 'rightEye']) {
    const node = vrm.humanoid.getRawBoneNode(name);
    if (node) rawRest[name] = { node, rest: node.getWorldQuaternion(new THREE.Quaternion()).premultiply(inv) };
  }
  const meshIds = new Map();
  let meshId = 0;
  vrm.scene.traverse((o) => {
    if (o.isMesh && o.morphTargetInfluences) meshIds.set(o, `m${meshId++}`);
  });
  return { vrm, applier, flip: applier.flip, bones: applier.bones, rawRest, meshIds };
}

/** The anim's tracks this model can show, the channels it cannot, whether the eyes
 *  move: what `poseAt` needs beside the model. */
export function bindAnim(applier, anim) {
  const tracks = [];
  const unknown = [];
  for (const [name, track] of Object.entries(appliedTracks(anim))) {
    if (applier.has(name)) tracks.push([name, track]);
    else unknown.push(name);
  }
  return { tracks, unknown, eyesMove: moves(anim.leftEye) || moves(anim.rightEye) };
}

const _q = [0, 0, 0, 1];

/** Pose `p` (`{anim, vrm, applier, tracks, eyesMove}`) at time t (seconds) and let
 *  three-vrm update; dt for spring bones. */
export function poseAt(p, t, dt) {
  const { anim, vrm, applier } = p;
  if (!anim || anim.head.length === 0) return;
  const pos = framePos(anim, t);
  for (const [name, track] of p.tracks) {
    applier.setWeight(name, track[pos.i0] + (track[pos.i1] - track[pos.i0]) * pos.f);
  }
  applier.setHead(sampleQuat(anim.head, pos, _q));
  if (p.eyesMove) {
    applier.setEye('leftEye', sampleQuat(anim.leftEye, pos, _q));
    applier.setEye('rightEye', sampleQuat(anim.rightEye, pos, _q));
  }
  vrm.update(dt);
}

/** The expressions three-vrm holds, most active first (for a readout). */
export function topExpressions(vrm, n) {
  const em = vrm && vrm.expressionManager;
  if (!em) return [];
  return em.expressions
    .map((e) => [e.expressionName, e.weight])
    .filter(([, w]) => w > 0.01)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n);
}
