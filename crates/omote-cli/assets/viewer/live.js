// omote live: the avatar driven live by `omote live --view`. The process pushes one
// JSON message per face over a WebSocket (`/live`; the format is in
// crates/omote-live/src/sinks/view.rs): `hello` with the channel names once, then
// `frame`s with the weights after the VRM override rules, the head and eye rotations
// and the session's status. Each frame is applied to the VRM as it arrives, through the
// npm package's VrmApplier (/vrm-applier.js: three-vrm's own override rules and lookAt
// off, as in the recorded viewer: the rules are applied once, in omote's core) and drawn
// at the next animation frame. The page reconnects by
// itself when the process restarts.
//
// For tests: `window.omoteLive` ({ready, connected, frames, last, error, expressions(),
// head(), reconnects}).
import * as THREE from 'three';
import { createStage, faceFraming, loadVrm } from '/common.js';

const params = new URLSearchParams(location.search);
const transparent = params.get('transparent') === '1';
const canvas = document.getElementById('view');
const stage = createStage(canvas, { transparent });
const $ = (id) => document.getElementById(id);

const live = {
  ready: false,
  connected: false,
  frames: 0,
  reconnects: 0,
  last: null,
  error: null,
  expressions() {
    const em = model && model.vrm.expressionManager;
    if (!em) return {};
    return Object.fromEntries(em.expressions.map((e) => [e.expressionName, e.weight]));
  },
  head() {
    return model && model.bones.head ? model.bones.head.node.quaternion.toArray() : null;
  },
};
window.omoteLive = live;

let model = null; // loadVrm's result
let modelUrl = null;
let channels = []; // the hello's channel names, in frame weight order
let loading = null;

function fail(e) {
  live.error = String(e && e.message ? e.message : e);
  $('error').textContent = live.error;
  console.error(e);
}

/** Frames the face from the front (`faceFraming`, the anim viewer's too): by the
 *  model's own size, so a small or an odd model is not lost off screen. */
function frameHead(m) {
  const { target, distance, box } = faceFraming(m.vrm, stage.camera.fov);
  Object.assign(stage.orbit, { distance, yaw: 0, pitch: 0 });
  stage.orbit.target.copy(target);
  stage.orbit.home = { target: target.clone(), distance, yaw: 0, pitch: 0 };
  live.framing = { box: [box.min.toArray(), box.max.toArray()], target: target.toArray(), distance };
  stage.placeCamera();
}

async function useModel(url) {
  if (url === modelUrl && (model || loading)) return loading;
  modelUrl = url;
  loading = (async () => {
    const m = await loadVrm(url);
    if (model) stage.scene.remove(model.vrm.scene);
    model = m;
    stage.scene.add(m.vrm.scene);
    frameHead(m);
    live.ready = true;
  })();
  return loading;
}

/** Applies one frame to the model at once. */
function apply(frame) {
  if (!model) return;
  const { applier } = model;
  applier.setWeights(channels, frame.w);
  applier.setHead(frame.head);
  applier.setEye('leftEye', frame.leftEye);
  applier.setEye('rightEye', frame.rightEye);
}

// ---------------------------------------------------------------- the connection

let socket = null;
let retryMs = 500;
let arrivals = []; // receive times of the last second's frames
let latencyMs = null;

function connect() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  socket = new WebSocket(`${proto}//${location.host}/live`);
  socket.onopen = () => {
    live.connected = true;
    retryMs = 500;
    $('conn').textContent = 'connected';
    $('conn').className = '';
  };
  socket.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { fail(`bad message: ${e}`); return; }
    if (msg.type === 'hello') {
      useModel(msg.model)
        .then(() => { channels = msg.channels; })
        .catch(fail);
      return;
    }
    if (msg.type !== 'frame') return;
    live.frames++;
    live.last = msg;
    const now = performance.now();
    arrivals.push(now);
    while (arrivals.length && arrivals[0] < now - 1000) arrivals.shift();
    // Same machine (or synchronised clocks): the process's send time to here. Date.now()
    // counts whole milliseconds (coarser in some browsers) and sentMs does not: never
    // below 0.
    latencyMs = Math.max(0, Date.now() - msg.sentMs);
    apply(msg);
  };
  socket.onclose = () => {
    if (live.connected) live.reconnects++;
    live.connected = false;
    $('conn').textContent = `disconnected: reconnecting in ${(retryMs / 1000).toFixed(1)} s…`;
    $('conn').className = 'down';
    setTimeout(connect, retryMs);
    retryMs = Math.min(5000, retryMs * 2);
  };
  socket.onerror = () => {}; // onclose follows and retries
}

function showStatus() {
  const f = live.last;
  if (!f) return;
  const s = f.status || {};
  $('rates').textContent = `page ${arrivals.length} fps · omote in ${s.fpsIn} /s, out ${s.fpsOut} /s`;
  $('tracking').textContent = s.tracking ? `tracking: ${s.tracking}` : 'tracking: none (automatic eyes)';
  // Two different spans: omote's own (input arrival → frame out, as its status line
  // and the README's 0.19 ms) and the page's (frame written → this script handled it,
  // which includes the browser's frame and script delays: tens of ms on loopback).
  $('latency').textContent = `latency: input → omote out ${s.latencyMs} ms · omote out → page script ${latencyMs === null ? '–' : latencyMs.toFixed(1)} ms`
    + (s.voice === null || s.voice === undefined ? '' : ` · voice ${Math.round(s.voice * 100)} %${s.voiced ? ' voiced' : ''}`);
}

let lastTime = performance.now();
function tick(now) {
  const dt = Math.min(0.1, (now - lastTime) / 1000);
  lastTime = now;
  if (model) model.vrm.update(dt);
  stage.render();
  showStatus();
  requestAnimationFrame(tick);
}

connect();
requestAnimationFrame(tick);
