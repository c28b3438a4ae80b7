// omote view SCENE.toml: play a baked dialogue scene — every character side by side on
// its VRM, the voices with Web Audio in step with the mouths, play/pause/scrub, and the
// player's Advance and Skip buttons. Served by `omote view`
// (crates/omote-cli/src/cmd/view/scene.rs, which documents the routes).
//
// Time: the bake's wall time (the faces' clock; a wait holds the timeline, not this).
// While playing, the clock is the AudioContext's (`clock: 'audio'`) so that voices and
// mouths cannot drift apart; when audio cannot run (no device, autoplay refused), the
// page's clock (`'page'`), silent. Every voice event of the bake is a buffer source
// scheduled at its `t` (started part-way in when playback starts inside it, stopped
// with a short fade at a skip's `cut`); pause, seek and a new bake stop them all and
// schedule again from the playhead.
//
// Presses: Advance or Skip at playhead T asks the server for a fresh bake of the scene
// with the presses so far plus this one (`/bake?advance=…&skip=…`) and goes on playing
// from the playhead on it: the new bake equals the old one up to T. The unattended bake
// moves on at each wait after its `hold`; once Advance has been pressed the scene
// waits for the player, so the waits the unattended bake already moved on from before
// T are kept, as presses just before they released.
//
// Camera: the scene's own camera path (the bake's `camera`, one position per frame,
// sampled by the server from the path the faces' camera correction saw) looking at the
// speaking character's head — the line the correction's camera angle was computed
// along, so side-view correction shapes are seen from the side they were made for. The
// path may be far from the faces, so instead of moving the camera the field of view
// narrows until the face fills FACE_FRACTION of the frame height (a zoom lens on the
// scene's camera). Between lines the view turns to the next speaker over FOCUS_LEAD_S
// before they speak. "Free camera" (button, C key, or any drag or wheel) hands the view
// to the page's orbit controls; "Scene camera" goes back.
//
// Test hooks: window.omoteStatus (plain data, updated every frame) and window.omoteScene
// (seek, play, pause, press, mouth, expressions, camera); window.omoteDebug (the
// camera and the focused face's projected height); used by tools/viewer-check/scene.mjs.
import * as THREE from 'three';
import { bindAnim, createStage, fetchOk, framePos, loadVrm, poseAt, topExpressions } from './common.js';

const $ = (id) => document.getElementById(id);
const ui = {
  canvas: $('view'), title: $('title'), who: $('who'), state: $('state'), unknown: $('unknown'),
  error: $('error'), play: $('play'), time: $('time'), clock: $('clock'), spans: $('spans'),
  advance: $('advance'), skip: $('skip'), reset: $('reset'), camera: $('camera'),
};
const COLOURS = ['#7fc4ff', '#ff9fb8', '#9fe8a0', '#e8c77f', '#c7a0ff', '#7fe8e0'];
const VOWELS = ['aa', 'ih', 'ou', 'ee', 'oh'];
/** Audio is scheduled this far ahead of "now" (s), so the first samples are not late. */
const LEAD_S = 0.05;
/** A cut voice fades out over this long (s) instead of clicking. */
const CUT_FADE_S = 0.03;
/** The speaking face fills this much of the frame height under the scene camera. */
const FACE_FRACTION = 0.4;
/** The scene camera turns to the next speaker over this long before they speak (s). */
const FOCUS_LEAD_S = 0.6;
/** The face spans from this far below the head bone (in units of the model's height
 *  above the head bone; the head bone sits about at the chin) to the top of the model. */
const CHIN_BELOW = 0.05;
/** The free camera's field of view (deg), the stage's. */
const FREE_FOV = 30;

const status = {
  ready: false, error: null,
  characters: [], // {id, model, loaded, unknown}
  time: 0, duration: 0, playing: false, waiting: false,
  clock: 'page', audioState: null,
  decoded: 0, voices: 0, scheduledVoices: 0,
  bakes: 0, baking: false, advances: [], skips: [],
};
window.omoteStatus = status;

function fail(err) {
  const msg = err && err.message ? err.message : String(err);
  status.error = msg;
  ui.error.textContent = msg;
  console.error(err);
}
window.addEventListener('error', (e) => fail(e.error || e.message));
window.addEventListener('unhandledrejection', (e) => fail(e.reason));

const stage = createStage(ui.canvas);
const { camera, orbit, placeCamera } = stage;

// ---------------------------------------------------------------- state

const state = {
  info: null,
  bake: null,
  chars: [], // {id, colour, vrm, applier, flip, bones, anim, tracks, unknown, eyesMove, cells}
  buffers: new Map(), // audio route → AudioBuffer
  ctx: null,
  playing: false,
  t: 0, // the playhead while paused; the anchor's time while playing
  anchor: null, // playing: {source: 'audio'|'page', at} — t = state.t + (clock − at)
  sources: [],
  last: null,
  lastOverlay: 0,
  stall: null, // the audio clock's last value and when it was read (page ms)
  cameraMode: 'free', // 'scene' once the bake has a camera path
};
const debug = { mode: 'free' };
window.omoteDebug = debug;

function duration() {
  return state.bake ? state.bake.duration : 0;
}

function pageNow() {
  return performance.now() / 1000;
}

/** How long after the AudioContext's clock a sample is heard (s). */
function outputLatency() {
  const { ctx } = state;
  return ctx ? (ctx.outputLatency || ctx.baseLatency || 0) : 0;
}

/** The playhead (s): on the audio clock, what is being heard now. */
function now() {
  if (!state.playing || !state.anchor) return state.t;
  const clock = state.anchor.source === 'audio' ? state.ctx.currentTime - outputLatency() : pageNow();
  return Math.min(duration(), state.t + Math.max(0, clock - state.anchor.at));
}

// ---------------------------------------------------------------- audio

function stopVoices() {
  for (const s of state.sources) {
    try { s.stop(); } catch { /* never started */ }
    s.disconnect();
  }
  state.sources = [];
  status.scheduledVoices = 0;
}

/** Schedule every voice of the bake from playhead `from`, the playhead being at
 *  AudioContext time `at`. */
function scheduleVoices(from, at) {
  stopVoices();
  const { ctx } = state;
  for (const v of state.bake.voices) {
    const buf = v.audio && state.buffers.get(v.audio);
    if (!buf) continue;
    const end = v.cut == null ? v.t + buf.duration : Math.min(v.t + buf.duration, v.cut);
    if (end <= from) continue;
    const src = ctx.createBufferSource();
    src.buffer = buf;
    const gain = ctx.createGain();
    src.connect(gain).connect(ctx.destination);
    const when = at + Math.max(0, v.t - from);
    src.start(when, Math.max(0, from - v.t));
    if (v.cut != null) {
      const cutAt = at + (v.cut - from);
      const fadeFrom = Math.max(when, cutAt - CUT_FADE_S);
      gain.gain.setValueAtTime(1, fadeFrom);
      gain.gain.linearRampToValueAtTime(0, Math.max(fadeFrom, cutAt) + 0.001);
      src.stop(Math.max(fadeFrom, cutAt) + 0.01);
    }
    state.sources.push(src);
  }
  status.scheduledVoices = state.sources.length;
}

/** Start the clock (and the voices, when audio runs) from the playhead. */
function anchor() {
  const { ctx } = state;
  if (ctx && ctx.state === 'running') {
    const at = ctx.currentTime + LEAD_S;
    state.anchor = { source: 'audio', at };
    state.stall = { value: ctx.currentTime, page: performance.now() };
    scheduleVoices(state.t, at);
  } else {
    stopVoices();
    state.anchor = { source: 'page', at: pageNow() };
  }
  status.clock = state.anchor.source;
}

async function setPlaying(on) {
  if (on === state.playing) return;
  if (!on) {
    state.t = now();
    state.playing = false;
    state.anchor = null;
    stopVoices();
  } else {
    if (state.t >= duration() - 1e-3) state.t = 0;
    if (state.ctx && state.ctx.state !== 'running') {
      // Browsers start audio only on a gesture; the play button is one. Do not wait for
      // long: without a device it may never run, and then the page's clock plays.
      await Promise.race([state.ctx.resume(), new Promise((r) => setTimeout(r, 300))]);
    }
    state.playing = true;
    state.last = null;
    anchor();
  }
  ui.play.textContent = state.playing ? 'Pause' : 'Play';
  status.playing = state.playing;
  status.audioState = state.ctx ? state.ctx.state : null;
}

function seek(t) {
  state.t = Math.max(0, Math.min(duration(), Number(t)));
  if (state.playing) anchor();
  poseAll(0);
  showTime();
}

/** The audio clock must move: if it has not for half a second of playing, go on with
 *  the page's clock (silent). */
function watchAudioClock() {
  if (!state.playing || !state.anchor || state.anchor.source !== 'audio') return;
  const v = state.ctx.currentTime;
  const p = performance.now();
  if (v !== state.stall.value) {
    state.stall = { value: v, page: p };
  } else if (p - state.stall.page > 500) {
    state.t = now();
    stopVoices();
    state.anchor = { source: 'page', at: pageNow() };
    status.clock = 'page';
    console.warn('omote view: the audio clock stopped; playing on, silent');
  }
}

// ---------------------------------------------------------------- bakes

/** Take a bake: every character's anim, the voices, the holds. */
function setBake(bake) {
  state.bake = bake;
  bake.characters.forEach((b, i) => {
    const c = state.chars[i];
    if (b.id !== c.id) throw new Error(`bake character ${i} is ${b.id}, the scene's is ${c.id}`);
    Object.assign(c, { anim: b.anim, ...bindAnim(c.applier, b.anim) });
  });
  status.bakes += 1;
  status.duration = bake.duration;
  status.voices = bake.voices.length;
  status.advances = bake.advances.slice();
  status.skips = bake.skips.slice();
  ui.reset.disabled = bake.advances.length + bake.skips.length === 0;
  drawSpans();
}

const fmt = (t) => Number(t.toFixed(4)).toString();

/** Press Advance or Skip at the playhead: bake again with the press, go on playing. */
async function press(kind) {
  if (status.baking) return null;
  const T = now();
  const { bake } = state;
  const advances = bake.advances.slice();
  const skips = bake.skips.slice();
  if (kind === 'advance') {
    if (advances.length === 0) {
      // From now on the scene waits for the player: keep the waits this bake already
      // moved on from by itself, as presses a frame and a half before it released
      // (while it still held: a press when nothing holds would skip).
      const early = 1.5 / bake.fps;
      for (const h of bake.holds) {
        if (h.to != null && h.to <= T) advances.push(Math.max(h.from, h.to - early));
      }
    }
    advances.push(T);
  } else if (kind === 'skip') {
    skips.push(T);
  } else {
    throw new Error(`unknown press ${kind}`);
  }
  return rebake(advances, skips);
}

async function rebake(advances, skips) {
  status.baking = true;
  ui.advance.disabled = ui.skip.disabled = true;
  try {
    const q = [];
    if (advances.length) q.push(`advance=${advances.map(fmt).join(',')}`);
    if (skips.length) q.push(`skip=${skips.map(fmt).join(',')}`);
    const bake = await (await fetchOk(`/bake${q.length ? `?${q.join('&')}` : ''}`)).json();
    const t = now();
    setBake(bake);
    state.t = Math.min(t, duration());
    if (state.playing) anchor();
    return bake;
  } finally {
    status.baking = false;
    ui.advance.disabled = ui.skip.disabled = false;
  }
}

// ---------------------------------------------------------------- camera

/** The scene camera's position at t (linear between the bake's frames), or null. */
function sceneCameraAt(t) {
  const track = state.bake && state.bake.camera;
  if (!track || track.length === 0) return null;
  const p = framePos({ head: track, fps: state.bake.fps }, t);
  return new THREE.Vector3().fromArray(track[p.i0]).lerp(new THREE.Vector3().fromArray(track[p.i1]), p.f);
}

const smoothstep = (x) => { const c = Math.max(0, Math.min(1, x)); return c * c * (3 - 2 * c); };

/** Whose face the scene camera frames at t: the speaker, turning to the next one over
 *  FOCUS_LEAD_S before they speak. {from, to, x}: character indices and the blend. */
function focusAt(t) {
  const keys = state.bake.voices.filter((v) => v.voicedStart != null)
    .sort((a, b) => a.voicedStart - b.voicedStart);
  if (keys.length === 0) return null;
  let k = -1;
  for (let i = 0; i < keys.length; i += 1) if (keys[i].voicedStart - FOCUS_LEAD_S <= t) k = i;
  if (k < 0) return { from: keys[0].character, to: keys[0].character, x: 1 };
  const from = k > 0 ? keys[k - 1].character : keys[k].character;
  const x = smoothstep((t - (keys[k].voicedStart - FOCUS_LEAD_S)) / FOCUS_LEAD_S);
  return { from, to: keys[k].character, x };
}

/** Character i's face: its head bone (where the scene puts its head) and the face's
 *  extent above and below it (m). */
function face(i) {
  const c = state.chars[i];
  return { head: c.place, above: c.rest.above, below: CHIN_BELOW * c.rest.above };
}

/** The projected height of character i's face as a fraction of the frame height, and
 *  its top and bottom (normalised device y). */
function faceOnScreen(i) {
  const f = face(i);
  camera.updateMatrixWorld();
  const top = f.head.clone().add(new THREE.Vector3(0, f.above, 0)).project(camera);
  const bottom = f.head.clone().add(new THREE.Vector3(0, -f.below, 0)).project(camera);
  return { character: i, top: top.y, bottom: bottom.y, height: (top.y - bottom.y) / 2 };
}

function setFov(deg) {
  if (Math.abs(camera.fov - deg) > 1e-9) {
    camera.fov = deg;
    camera.updateProjectionMatrix();
  }
}

/** Under the scene camera: its position at t, looking at the focused face, zoomed. */
function placeSceneCamera(t) {
  const pos = sceneCameraAt(t);
  const focus = focusAt(t);
  if (!pos) return;
  let target;
  let size;
  if (focus) {
    const a = face(focus.from);
    const b = face(focus.to);
    target = a.head.clone().lerp(b.head, focus.x);
    size = THREE.MathUtils.lerp(a.above + a.below, b.above + b.below, focus.x);
  } else {
    // Nobody speaks: every head in view.
    const box = new THREE.Box3();
    state.chars.forEach((c, i) => {
      const f = face(i);
      box.expandByPoint(f.head.clone().add(new THREE.Vector3(-f.above, f.above, 0)));
      box.expandByPoint(f.head.clone().add(new THREE.Vector3(f.above, -f.below, 0)));
    });
    target = box.getCenter(new THREE.Vector3());
    const s = box.getSize(new THREE.Vector3());
    size = Math.max(s.y, s.x / camera.aspect) * FACE_FRACTION * 1.5;
  }
  const distance = Math.max(0.05, pos.distanceTo(target));
  const fov = THREE.MathUtils.radToDeg(2 * Math.atan(size / FACE_FRACTION / 2 / distance));
  setFov(Math.max(4, Math.min(60, fov)));
  camera.position.copy(pos);
  camera.lookAt(target);
  camera.updateMatrixWorld();
  const dir = camera.getWorldDirection(new THREE.Vector3());
  Object.assign(debug, {
    mode: 'scene', t,
    camera: { position: pos.toArray(), direction: dir.toArray(), fov: camera.fov, target: target.toArray() },
    focus: focus && { ...focus, speaker: focus.x >= 0.5 ? state.chars[focus.to].id : state.chars[focus.from].id },
    face: focus ? faceOnScreen(focus.x >= 0.5 ? focus.to : focus.from) : null,
  });
}

/** 'scene' or 'free'; going free keeps the view where it is (as an orbit). */
function setCameraMode(mode, { keepView = false } = {}) {
  if (mode === 'scene' && !(state.bake && state.bake.camera)) mode = 'free';
  state.cameraMode = mode;
  ui.camera.textContent = mode === 'scene' ? 'Free camera' : 'Scene camera';
  ui.camera.disabled = !(state.bake && state.bake.camera);
  if (mode === 'free') {
    if (keepView && debug.mode === 'scene') {
      // The same view at the stage's field of view: further back by the zoom.
      const target = new THREE.Vector3().fromArray(debug.camera.target);
      const off = camera.position.clone().sub(target);
      const zoom = Math.tan(THREE.MathUtils.degToRad(camera.fov) / 2) / Math.tan(THREE.MathUtils.degToRad(FREE_FOV) / 2);
      const distance = off.length() * zoom;
      Object.assign(orbit, {
        target, distance, yaw: Math.atan2(off.x, off.z), pitch: Math.asin(Math.max(-1, Math.min(1, off.y / off.length()))),
      });
    } else if (orbit.home) {
      Object.assign(orbit, orbit.home, { target: orbit.home.target.clone() });
    }
    setFov(FREE_FOV);
    placeCamera();
    Object.assign(debug, { mode: 'free', camera: null, focus: null, face: null });
  }
  status.cameraMode = state.cameraMode;
}

// ---------------------------------------------------------------- drawing

function poseAll(dt) {
  const t = now();
  for (const c of state.chars) if (c.anim) poseAt(c, t, dt);
  status.time = t;
  status.waiting = isWaiting(t);
  if (state.cameraMode === 'scene') placeSceneCamera(t);
}

function isWaiting(t) {
  return !!state.bake && state.bake.holds.some((h) => h.from <= t && (h.to == null || t < h.to));
}

function showTime() {
  const d = duration();
  const t = now();
  ui.time.value = d > 0 ? String(t / d) : '0';
  ui.clock.textContent = `${t.toFixed(2)} / ${d.toFixed(2)} s`;
  const held = status.waiting;
  ui.state.className = held ? 'waiting' : '';
  const presses = state.bake ? state.bake.advances.length + state.bake.skips.length : 0;
  const pressed = presses ? ` · ${presses} press${presses > 1 ? 'es' : ''}` : '';
  let text = held ? 'waiting for the player — press Advance' : (state.playing ? 'playing' : 'paused');
  if (held && state.bake.advances.length === 0) text = 'waiting (moves on by itself until you press Advance)';
  if (!state.playing && t >= d - 1e-3 && !held) text = 'end of the scene';
  ui.state.textContent = `${text}${pressed}${state.playing ? ` · ${status.clock === 'audio' ? 'with audio' : 'silent'}` : ''}`;
}

function speaking(i, t) {
  return state.bake.voices.some((v) => v.character === i && v.voicedStart != null
    && v.voicedStart <= t && t < (v.cut == null ? v.voicedEnd : Math.min(v.cut, v.voicedEnd)));
}

function showWho() {
  const t = now();
  state.chars.forEach((c, i) => {
    c.cells.name.className = `id${speaking(i, t) ? ' speaking' : ''}`;
    c.cells.top.replaceChildren(...topExpressions(c.vrm, 4).map(([name, w]) => {
      const tr = document.createElement('tr');
      const bar = document.createElement('span');
      bar.className = 'bar';
      bar.style.width = `${Math.round(w * 50)}px`;
      bar.style.background = c.colour;
      for (const content of [name, w.toFixed(2), bar]) {
        const td = document.createElement('td');
        td.append(content);
        tr.append(td);
      }
      return tr;
    }));
  });
}

function drawSpans() {
  const d = duration() || 1;
  const pct = (t) => `${(100 * Math.max(0, Math.min(d, t))) / d}%`;
  const items = [];
  const n = state.chars.length;
  for (const v of state.bake.voices) {
    if (v.voicedStart == null) continue;
    const end = v.cut == null ? v.voicedEnd : Math.min(v.cut, v.voicedEnd);
    const div = document.createElement('div');
    div.style.left = pct(v.voicedStart);
    div.style.width = `calc(${pct(end)} - ${pct(v.voicedStart)})`;
    div.style.top = `${(v.character * 6) / Math.max(1, n)}px`;
    div.style.background = state.chars[v.character].colour;
    div.title = `${state.chars[v.character].id}: ${v.clip}${v.cut != null ? ' (cut)' : ''}`;
    items.push(div);
  }
  for (const h of state.bake.holds) {
    const div = document.createElement('div');
    div.className = 'hold';
    const to = h.to == null ? d : h.to;
    div.style.left = pct(h.from);
    div.style.width = `max(3px, calc(${pct(to)} - ${pct(h.from)}))`;
    div.title = `wait ${h.wait}: ${h.to == null ? 'until the player advances' : `${(to - h.from).toFixed(2)} s`}`;
    items.push(div);
  }
  ui.spans.replaceChildren(...items);
}

function tick(nowMs) {
  requestAnimationFrame(tick);
  const dt = state.last == null ? 0 : Math.min(0.1, (nowMs - state.last) / 1000);
  state.last = nowMs;
  watchAudioClock();
  if (state.playing && now() >= duration()) {
    setPlaying(false);
    state.t = duration();
  }
  poseAll(dt);
  showTime();
  if (nowMs - state.lastOverlay > 100) { showWho(); state.lastOverlay = nowMs; }
  stage.render();
}

// ---------------------------------------------------------------- layout

/** Arms down from the T-pose (the anims drive only the neck, head and eyes), so that
 *  characters side by side do not reach into each other. */
function relaxArms(c, deg = 70) {
  const a = THREE.MathUtils.degToRad(deg);
  for (const [name, sign] of [['leftUpperArm', -1], ['rightUpperArm', 1]]) {
    const node = c.vrm.humanoid.getNormalizedBoneNode(name);
    if (!node) continue;
    const q = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 0, 1), sign * a);
    if (c.flip) { q.x = -q.x; q.z = -q.z; } // VRM 0.x: the normalised frame faces -Z
    node.quaternion.multiply(q);
  }
  c.vrm.update(0);
}

/** Characters side by side: each model's head at its place in a row (or at the scene's
 *  `position`, when the server gives one), turned by its `facing`; the camera frames
 *  the heads and shoulders. */
function layOut() {
  let width = 0;
  for (const c of state.chars) {
    relaxArms(c);
    c.vrm.scene.updateMatrixWorld(true);
    const box = new THREE.Box3().setFromObject(c.vrm.scene);
    width = Math.max(width, box.max.x - box.min.x);
    const head = c.vrm.humanoid.getRawBoneNode('head');
    const p = new THREE.Vector3();
    if (head) head.getWorldPosition(p); else box.getCenter(p);
    c.rest = { head: p, above: Math.max(0.05, box.max.y - p.y) };
  }
  const spacing = Math.min(1.2, Math.max(0.45, 1.2 * width));
  const n = state.chars.length;
  const box = new THREE.Box3();
  state.chars.forEach((c, i) => {
    const info = state.info.characters[i];
    const place = Array.isArray(info.position)
      ? new THREE.Vector3(...info.position)
      : new THREE.Vector3((i - (n - 1) / 2) * spacing, c.rest.head.y, 0);
    c.place = place.clone();
    const group = new THREE.Group();
    group.add(c.vrm.scene);
    c.vrm.scene.position.sub(c.rest.head);
    group.position.copy(place);
    if (typeof info.facing === 'number') group.rotation.y = THREE.MathUtils.degToRad(info.facing);
    stage.scene.add(group);
    group.updateMatrixWorld(true);
    const { above } = c.rest;
    box.expandByPoint(new THREE.Vector3(place.x - 1.6 * above, place.y + 1.4 * above, place.z));
    box.expandByPoint(new THREE.Vector3(place.x + 1.6 * above, place.y - 2.4 * above, place.z));
  });
  const size = box.getSize(new THREE.Vector3());
  // A little below the middle of the box: the faces sit above the readouts.
  const target = box.getCenter(new THREE.Vector3()).add(new THREE.Vector3(0, -0.12 * size.y, 0));
  const vfov = THREE.MathUtils.degToRad(camera.fov);
  const hfov = 2 * Math.atan(Math.tan(vfov / 2) * camera.aspect);
  const distance = 1.25 * Math.max(size.y / (2 * Math.tan(vfov / 2)), size.x / (2 * Math.tan(hfov / 2)));
  Object.assign(orbit, { target, distance, yaw: 0, pitch: 0 });
  orbit.home = { target: target.clone(), distance, yaw: 0, pitch: 0 };
  status.framing = { spacing, target: target.toArray(), distance };
  placeCamera();
}

// ---------------------------------------------------------------- loading

async function decodeVoices(info) {
  const routes = [...new Set(info.characters.flatMap((c) => c.lines.map((l) => l.audio)).filter(Boolean))];
  try {
    state.ctx = new AudioContext();
  } catch (e) {
    console.warn(`omote view: no Web Audio (${e}); playing silent`);
    return;
  }
  await Promise.all(routes.map(async (route) => {
    const bytes = await (await fetchOk(route)).arrayBuffer();
    state.buffers.set(route, await state.ctx.decodeAudioData(bytes));
    status.decoded += 1;
  }));
}

async function main() {
  const info = await (await fetchOk('/scene.json')).json();
  state.info = info;
  ui.title.textContent = `${info.scene}: ${info.characters.map((c) => c.id).join(', ')}`;
  document.title = `omote view: ${info.scene}`;
  status.characters = info.characters.map((c) => ({ id: c.id, model: c.model, loaded: false, unknown: [] }));

  const [bake, models] = await Promise.all([
    fetchOk('/bake').then((r) => r.json()),
    Promise.all(info.characters.map(async (c, i) => {
      const m = await loadVrm(c.vrm);
      status.characters[i].loaded = true;
      return m;
    })),
    decodeVoices(info),
  ]);
  state.chars = info.characters.map((c, i) => {
    const cells = { name: document.createElement('div'), top: document.createElement('table') };
    cells.name.textContent = c.id;
    const col = document.createElement('div');
    col.append(cells.name, cells.top);
    ui.who.append(col);
    return { id: c.id, colour: COLOURS[i % COLOURS.length], ...models[i], cells };
  });
  layOut();
  setBake(bake);
  status.bakes = 1;
  setCameraMode('scene');
  const unknown = [];
  state.chars.forEach((c, i) => {
    status.characters[i].unknown = c.unknown.slice();
    if (c.unknown.length) unknown.push(`${c.id}: ${c.unknown.length} (${c.unknown.slice(0, 4).join(', ')}${c.unknown.length > 4 ? ', …' : ''})`);
  });
  if (unknown.length) ui.unknown.textContent = `anim channels not in the model — ${unknown.join('; ')}`;

  ui.play.addEventListener('click', () => setPlaying(!state.playing));
  ui.time.addEventListener('input', () => seek(Number(ui.time.value) * duration()));
  ui.advance.addEventListener('click', () => press('advance').catch(fail));
  ui.skip.addEventListener('click', () => press('skip').catch(fail));
  ui.reset.addEventListener('click', () => rebake([], []).catch(fail));
  ui.camera.addEventListener('click', () => {
    setCameraMode(state.cameraMode === 'scene' ? 'free' : 'scene');
    poseAll(0);
  });
  // Dragging or zooming under the scene camera takes it over from where it is.
  const takeOver = () => { if (state.cameraMode === 'scene') setCameraMode('free', { keepView: true }); };
  ui.canvas.addEventListener('pointerdown', takeOver);
  ui.canvas.addEventListener('wheel', takeOver, { passive: true });
  // Keys (when no control has the focus, so a focused button is not pressed twice):
  // space plays and pauses, Enter or N advances, S skips.
  window.addEventListener('keydown', (e) => {
    if (e.target !== document.body || e.repeat) return;
    const key = e.key.toLowerCase();
    if (key === ' ') setPlaying(!state.playing);
    else if (key === 'enter' || key === 'n') press('advance').catch(fail);
    else if (key === 's') press('skip').catch(fail);
    else if (key === 'c' && !ui.camera.disabled) ui.camera.click();
    else return;
    e.preventDefault();
  });
  for (const b of [ui.play, ui.time, ui.advance, ui.skip]) b.disabled = false;
  seek(0);
  showWho();
  stage.render();
  requestAnimationFrame(tick);
}

// ---------------------------------------------------------------- test hook

window.omoteScene = {
  /** Move the playhead (s); playing goes on from there. */
  seek(t) { seek(t); return now(); },
  play() { return setPlaying(true); },
  pause() { return setPlaying(false); },
  /** Press Advance or Skip at the playhead; resolves to the new bake's presses. */
  async press(kind) {
    const b = await press(kind);
    return b && { advances: b.advances, skips: b.skips, duration: b.duration };
  },
  /** The bake's voices and holds. */
  bake() { return { voices: state.bake.voices, holds: state.bake.holds, duration: duration() }; },
  /** Character i's vowel weights as three-vrm holds them. */
  mouth(i) {
    const em = state.chars[i].vrm.expressionManager;
    return Object.fromEntries(VOWELS.map((v) => [v, em ? (em.getValue(v) || 0) : 0]));
  },
  /** 'scene' or 'free' camera; the camera as window.omoteDebug reports it. */
  camera(mode) {
    if (mode) { setCameraMode(mode); poseAll(0); }
    return { mode: state.cameraMode, ...JSON.parse(JSON.stringify(debug)) };
  },
  /** Character i's expressions as three-vrm holds them. */
  expressions(i) {
    const em = state.chars[i].vrm.expressionManager;
    return em ? Object.fromEntries(em.expressions.map((e) => [e.expressionName, e.weight])) : {};
  },
};

main().then(() => { status.ready = true; }, fail);
