// omote view: play an omote anim (docs/anim-format.md) on a VRM with three-vrm.
//
// Per frame the model is posed from the anim by `poseAt` (common.js: applied weights
// with three-vrm's override rules off, head and eye bones), then rendered. Served by
// `omote view` (crates/omote-cli/src/cmd/view.rs); scene.js plays scenes.
//
// Test hook: window.omoteViewer (see the bottom of this file).
import * as THREE from 'three';
import { bindAnim, createStage, faceFraming, fetchOk, loadVrm, poseAt, topExpressions } from './common.js';

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

const stage = createStage(ui.canvas);
const { camera, orbit, placeCamera } = stage;

/** Aim the camera at the face (`faceFraming`, shared with the live page). */
function frameFace(vrm) {
  const { target, distance, box } = faceFraming(vrm, camera.fov);
  orbit.target.copy(target);
  orbit.distance = distance;
  orbit.yaw = 0;
  orbit.pitch = 0;
  player.framing = { box: [box.min.toArray(), box.max.toArray()], target: target.toArray(), distance };
  orbit.home = { target: target.clone(), distance, yaw: 0, pitch: 0 };
  placeCamera();
}

// ---------------------------------------------------------------- player

const player = {
  anim: null, vrm: null, applier: null, flip: false, t: 0, playing: true, last: null,
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

/** Pose the model at time t (seconds) and let three-vrm update; dt for spring bones. */
function applyAt(t, dt) {
  if (player.vrm) poseAt(player, t, dt);
}

function render() {
  stage.render();
}

function showTime() {
  const d = duration();
  ui.time.value = d > 0 ? String(player.t / d) : '0';
  ui.clock.textContent = `${player.t.toFixed(2)} / ${d.toFixed(2)} s`;
}

function showTop() {
  if (!player.vrm) return;
  const active = topExpressions(player.vrm, 8);
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

async function main() {
  const [anim, info] = await Promise.all([
    fetchOk('/anim.json').then((r) => r.json()),
    fetchOk('/info.json').then((r) => r.json()),
  ]);
  ui.title.textContent = `${info.anim} on ${info.model}`;
  document.title = `omote view: ${info.anim}`;

  const model = await loadVrm('/model.vrm');
  stage.scene.add(model.vrm.scene);
  const bound = bindAnim(model.applier, anim);
  const { unknown } = bound;
  if (unknown.length) {
    const shown = unknown.slice(0, 6).join(', ');
    const more = unknown.length > 6 ? `, … (+${unknown.length - 6}, all in the console)` : '';
    ui.unknown.textContent = `${unknown.length} anim channels not in the model: ${shown}${more}`;
    console.info(`omote view: anim channels not in the model: ${unknown.join(', ')}`);
  }

  Object.assign(player, { anim, ...model, ...bound });
  frameFace(player.vrm);
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
