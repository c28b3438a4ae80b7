// omote view: play an omote anim (docs/anim-format.md) on a VRM with three-vrm.
//
// Per frame: every track of what the face shows (`appliedExpressions`, after the VRM
// override rules; `expressions` in anims without it) → expressionManager.setValue, with
// three-vrm's own override rules switched off (see `showApplied` below), head →
// normalised neck/head bones (split evenly when the model has a neck, like omote's VRMA
// writer), eye tracks → normalised eye bones (when they move; three-vrm's own lookAt is
// switched off so it does not fight them), then vrm.update(dt). Served by `omote view`
// (crates/omote-cli/src/cmd/view.rs).
//
// Test hook: window.omoteViewer (see the bottom of this file).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { VRMLoaderPlugin, VRMUtils } from '@pixiv/three-vrm';

const $ = (id) => document.getElementById(id);
const ui = {
  canvas: $('view'), title: $('title'), top: $('top'), unknown: $('unknown'), error: $('error'),
  play: $('play'), time: $('time'), clock: $('clock'), loop: $('loop'),
};

const hook = {
  ready: false,
  error: null,
};
window.omoteViewer = hook;

function fail(err) {
  const msg = err && err.message ? err.message : String(err);
  hook.error = msg;
  ui.error.textContent = msg;
  console.error(err);
}
window.addEventListener('error', (e) => fail(e.error || e.message));
window.addEventListener('unhandledrejection', (e) => fail(e.reason));

async function fetchOk(url) {
  const res = await fetch(url, { cache: 'no-store' });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}: ${(await res.text()).trim()}`);
  return res;
}

// ---------------------------------------------------------------- anim sampling

/** Frame position of time t: indices and blend factor. */
function framePos(anim, t) {
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

/** The track's quaternion at `pos`, in three-vrm's normalised frame for this model. */
function sampleQuat(track, pos, flip, out) {
  _qa.fromArray(track[pos.i0]);
  _qb.fromArray(track[pos.i1]);
  out.slerpQuaternions(_qa, _qb, pos.f);
  if (flip) { out.x = -out.x; out.z = -out.z; } // VRM 0.x models face -Z in three-vrm
  return out;
}

function moves(track) {
  return track.some((q) => Math.abs(q[0]) + Math.abs(q[1]) + Math.abs(q[2]) > 1e-6);
}

// ---------------------------------------------------------------- scene

const renderer = new THREE.WebGLRenderer({ canvas: ui.canvas, antialias: true });
renderer.setPixelRatio(window.devicePixelRatio);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x20242b);
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
  const w = ui.canvas.clientWidth || window.innerWidth;
  const h = ui.canvas.clientHeight || window.innerHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / Math.max(1, h);
  camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);
resize();

// Drag to orbit, wheel to zoom, double-click to reset.
let drag = null;
ui.canvas.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, y: e.clientY }; ui.canvas.setPointerCapture(e.pointerId); });
ui.canvas.addEventListener('pointerup', () => { drag = null; });
ui.canvas.addEventListener('pointermove', (e) => {
  if (!drag) return;
  orbit.yaw -= (e.clientX - drag.x) * 0.01;
  orbit.pitch = Math.max(-1.4, Math.min(1.4, orbit.pitch + (e.clientY - drag.y) * 0.01));
  drag = { x: e.clientX, y: e.clientY };
  placeCamera();
});
ui.canvas.addEventListener('wheel', (e) => {
  e.preventDefault();
  orbit.distance = Math.max(0.05, Math.min(20, orbit.distance * Math.exp(e.deltaY * 0.001)));
  placeCamera();
}, { passive: false });
ui.canvas.addEventListener('dblclick', () => { if (orbit.home) Object.assign(orbit, orbit.home); placeCamera(); });

/** Aim the camera at the face: from the head bone to the top of the model is about half
 *  a head; frame one and a half of those around a point a little above the head bone. */
function frameFace(vrm) {
  vrm.scene.updateMatrixWorld(true);
  const box = new THREE.Box3().setFromObject(vrm.scene);
  const size = box.getSize(new THREE.Vector3());
  const head = vrm.humanoid.getRawBoneNode('head');
  const target = new THREE.Vector3();
  let extent = Math.max(size.x, size.y);
  if (head) {
    head.getWorldPosition(target);
    const above = box.max.y - target.y;
    if (above > 0.05) {
      extent = Math.min(extent, 1.5 * above);
      target.y += 0.45 * above;
    }
  } else {
    box.getCenter(target);
  }
  const fov = THREE.MathUtils.degToRad(camera.fov);
  orbit.target.copy(target);
  orbit.distance = (1.1 * extent) / (2 * Math.tan(fov / 2));
  orbit.yaw = 0;
  orbit.pitch = 0;
  player.framing = { box: [box.min.toArray(), box.max.toArray()], target: target.toArray(), distance: orbit.distance };
  orbit.home = { target: target.clone(), distance: orbit.distance, yaw: 0, pitch: 0 };
  placeCamera();
}

// ---------------------------------------------------------------- player

const player = {
  anim: null, vrm: null, flip: false, t: 0, playing: true, last: null,
  tracks: [], // [name, Float32Array-ish] for channels the model has
  unknown: [],
  bones: {}, // normalised nodes and rest rotations
  rawRest: {}, // raw bones' rest rotations in the VRM scene frame
  eyesMove: false,
  meshIds: new Map(),
  lastOverlay: 0,
};

function duration() {
  const a = player.anim;
  return a ? a.head.length / a.fps : 0;
}

const _q = new THREE.Quaternion();
const _half = new THREE.Quaternion();
const IDENTITY = new THREE.Quaternion();

/** Pose the model at time t (seconds) and let three-vrm update; dt for spring bones. */
function applyAt(t, dt) {
  const { anim, vrm, bones, flip } = player;
  if (!anim || anim.head.length === 0) return;
  const pos = framePos(anim, t);
  const em = vrm.expressionManager;
  if (em) {
    for (const [name, track] of player.tracks) {
      em.setValue(name, track[pos.i0] + (track[pos.i1] - track[pos.i0]) * pos.f);
    }
  }
  sampleQuat(anim.head, pos, flip, _q);
  if (bones.neck) {
    _half.slerpQuaternions(IDENTITY, _q, 0.5);
    bones.neck.node.quaternion.copy(bones.neck.rest).multiply(_half);
    bones.head.node.quaternion.copy(bones.head.rest).multiply(_half);
  } else if (bones.head) {
    bones.head.node.quaternion.copy(bones.head.rest).multiply(_q);
  }
  if (player.eyesMove) {
    for (const [bone, track] of [['leftEye', anim.leftEye], ['rightEye', anim.rightEye]]) {
      const b = bones[bone];
      if (b) b.node.quaternion.copy(b.rest).multiply(sampleQuat(track, pos, flip, _q));
    }
  }
  vrm.update(dt);
}

function render() {
  renderer.render(scene, camera);
}

function showTime() {
  const d = duration();
  ui.time.value = d > 0 ? String(player.t / d) : '0';
  ui.clock.textContent = `${player.t.toFixed(2)} / ${d.toFixed(2)} s`;
}

function showTop() {
  const em = player.vrm && player.vrm.expressionManager;
  if (!em) return;
  const active = em.expressions
    .map((e) => [e.expressionName, e.weight])
    .filter(([, w]) => w > 0.01)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8);
  ui.top.replaceChildren(...active.map(([name, w]) => {
    const tr = document.createElement('tr');
    const bar = document.createElement('span');
    bar.className = 'bar';
    bar.style.width = `${Math.round(w * 80)}px`;
    for (const content of [name, w.toFixed(2), bar]) {
      const td = document.createElement('td');
      td.append(content);
      tr.append(td);
    }
    return tr;
  }));
}

function setPlaying(on) {
  player.playing = on;
  player.last = null;
  ui.play.textContent = on ? 'Pause' : 'Play';
}

function tick(now) {
  requestAnimationFrame(tick);
  if (!player.vrm) return;
  const dt = player.last == null ? 0 : Math.min(0.1, (now - player.last) / 1000);
  player.last = now;
  if (player.playing) {
    const d = duration();
    player.t += dt;
    if (player.t >= d) {
      if (ui.loop.checked && d > 0) player.t %= d;
      else { player.t = d; setPlaying(false); }
    }
    applyAt(player.t, dt);
    showTime();
    if (now - player.lastOverlay > 100) { showTop(); player.lastOverlay = now; }
  } else {
    // Paused: keep spring bones settling on the held pose.
    applyAt(player.t, dt);
  }
  render();
}

ui.play.addEventListener('click', () => {
  if (!player.playing && player.t >= duration()) player.t = 0;
  setPlaying(!player.playing);
});
ui.time.addEventListener('input', () => {
  setPlaying(false);
  player.t = Number(ui.time.value) * duration();
  applyAt(player.t, 0);
  showTime();
  showTop();
});

// ---------------------------------------------------------------- loading

/** What the face shows: the weights after the override rules. Anims without
 *  `appliedExpressions` (version 1, VMC recordings) have them in `expressions`. */
function appliedTracks(anim) {
  return anim.appliedExpressions || anim.expressions;
}

/** The page plays the applied weights with three-vrm's override rules off, rather than
 *  the player input with the rules on, so that what three-vrm shows is exactly
 *  `appliedExpressions`: (1) for every model, also where three-vrm's rules differ from
 *  the VRM 1.0 specification omote follows (three-vrm also sums a category's own
 *  members) and where the model's override settings differ from the rig the anim was
 *  recorded with; (2) for anims whose only weights already are after the rules
 *  (version 1, VMC recordings), which the rules would damp a second time (a blink under
 *  `happy` 0.6 at 0.16 instead of 0.4); (3) the readout of the most active expressions
 *  then lists what the face shows. The rules are applied once, in omote's core. */
function showApplied(em) {
  for (const e of em.expressions) {
    e.overrideBlink = 'none';
    e.overrideLookAt = 'none';
    e.overrideMouth = 'none';
  }
}

async function main() {
  const [anim, info] = await Promise.all([
    fetchOk('/anim.json').then((r) => r.json()),
    fetchOk('/info.json').then((r) => r.json()),
  ]);
  ui.title.textContent = `${info.anim} on ${info.model}`;
  document.title = `omote view: ${info.anim}`;

  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser));
  const gltf = await loader.parseAsync(await (await fetchOk('/model.vrm')).arrayBuffer(), '/');
  const vrm = gltf.userData.vrm;
  if (!vrm) throw new Error('/model.vrm loaded, but it has no VRM extension');
  const flip = vrm.meta && vrm.meta.metaVersion === '0';
  if (flip) VRMUtils.rotateVRM0(vrm);
  scene.add(vrm.scene);

  // Our eye tracks drive the eyes; three-vrm's lookAt must not apply its own yaw/pitch.
  if (vrm.lookAt) {
    vrm.lookAt.autoUpdate = false;
    vrm.lookAt.applier = { applyYawPitch() {} };
  }
  const em = vrm.expressionManager;
  if (em) {
    em.resetValues();
    showApplied(em);
  }
  vrm.update(0);

  const bones = {};
  for (const name of ['neck', 'head', 'leftEye', 'rightEye']) {
    const node = vrm.humanoid.getNormalizedBoneNode(name);
    if (node) bones[name] = { node, rest: node.quaternion.clone() };
  }
  const inv = new THREE.Quaternion();
  vrm.scene.updateMatrixWorld(true);
  vrm.scene.getWorldQuaternion(inv).invert();
  const rawRest = {};
  for (const name of ['neck', 'head', 'leftEye', 'rightEye']) {
    const node = vrm.humanoid.getRawBoneNode(name);
    if (node) rawRest[name] = { node, rest: node.getWorldQuaternion(new THREE.Quaternion()).premultiply(inv) };
  }

  const tracks = [];
  const unknown = [];
  for (const [name, track] of Object.entries(appliedTracks(anim))) {
    if (em && em.getExpression(name)) tracks.push([name, track]);
    else unknown.push(name);
  }
  if (unknown.length) {
    const shown = unknown.slice(0, 6).join(', ');
    const more = unknown.length > 6 ? `, … (+${unknown.length - 6}, all in the console)` : '';
    ui.unknown.textContent = `${unknown.length} anim channels not in the model: ${shown}${more}`;
    console.info(`omote view: anim channels not in the model: ${unknown.join(', ')}`);
  }
  let meshId = 0;
  vrm.scene.traverse((o) => {
    if (o.isMesh && o.morphTargetInfluences) player.meshIds.set(o, `m${meshId++}`);
  });

  Object.assign(player, {
    anim, vrm, flip, tracks, unknown, bones, rawRest,
    eyesMove: moves(anim.leftEye) || moves(anim.rightEye),
  });
  frameFace(vrm);
  ui.play.disabled = false;
  ui.time.disabled = false;
  applyAt(0, 0);
  showTime();
  showTop();
  render();
  requestAnimationFrame(tick);
}

// ---------------------------------------------------------------- test hook

const arr = (q) => [q.x, q.y, q.z, q.w];

Object.assign(hook, {
  /** Anim and model facts. */
  info() {
    const { anim, vrm } = player;
    return {
      fps: anim.fps, frames: anim.head.length, duration: duration(),
      metaVersion: vrm.meta ? vrm.meta.metaVersion : null,
      unknown: player.unknown.slice(), eyesMove: player.eyesMove,
      neck: !!player.bones.neck, framing: player.framing,
    };
  },
  /** Pause and pose the model at time t (seconds); renders once. */
  seek(t) {
    setPlaying(false);
    player.t = Math.max(0, Math.min(duration(), Number(t)));
    applyAt(player.t, 0);
    showTime();
    showTop();
    render();
    return player.t;
  },
  /** The playback time in seconds. */
  time() { return player.t; },
  play() { setPlaying(true); },
  pause() { setPlaying(false); },
  /** Every expression of the model as three-vrm holds it: the value set (`weight`: the
   *  anim's applied weight), its override settings (all `none`: the page switches
   *  three-vrm's rules off), categories and morph binds. */
  expressions() {
    const em = player.vrm.expressionManager;
    if (!em) return [];
    return em.expressions.map((e) => ({
      name: e.expressionName,
      weight: e.weight,
      isBinary: e.isBinary,
      overrideBlink: e.overrideBlink,
      overrideLookAt: e.overrideLookAt,
      overrideMouth: e.overrideMouth,
      categories: [
        em.blinkExpressionNames.includes(e.expressionName) && 'blink',
        em.lookAtExpressionNames.includes(e.expressionName) && 'lookAt',
        em.mouthExpressionNames.includes(e.expressionName) && 'mouth',
      ].filter(Boolean),
      morphBinds: e.binds
        .filter((b) => b.primitives && typeof b.index === 'number')
        .flatMap((b) => b.primitives
          .filter((p) => player.meshIds.has(p))
          .map((p) => ({ target: `${player.meshIds.get(p)}:${b.index}`, weight: b.weight }))),
    }));
  },
  /** The morph target influences three-vrm wrote into the meshes, `mesh:index` → value. */
  morphs() {
    const out = {};
    for (const [mesh, id] of player.meshIds) {
      mesh.morphTargetInfluences.forEach((v, i) => { out[`${id}:${i}`] = v; });
    }
    return out;
  },
  /** Bone rotations in the VRM frame (+Z forward, also for VRM 0.x models): normalised
   *  (what we set) and the raw bones' rotation relative to their rest in the VRM scene
   *  (what three-vrm made of it). */
  bones() {
    const out = { normalized: {}, raw: {} };
    const unflip = (q) => (player.flip ? [-q[0], q[1], -q[2], q[3]] : q);
    for (const [name, b] of Object.entries(player.bones)) out.normalized[name] = unflip(arr(b.node.quaternion));
    const inv = new THREE.Quaternion();
    player.vrm.scene.updateMatrixWorld(true);
    player.vrm.scene.getWorldQuaternion(inv).invert();
    for (const [name, b] of Object.entries(player.rawRest)) {
      const q = b.node.getWorldQuaternion(new THREE.Quaternion()).premultiply(inv)
        .multiply(b.rest.clone().invert());
      if (player.flip) { q.x = -q.x; q.z = -q.z; }
      out.raw[name] = arr(q);
    }
    return out;
  },
});

main().then(() => { hook.ready = true; }, fail);
