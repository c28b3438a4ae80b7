// Test helper: open a running `omote view` in headless Chromium, seek to frames of the
// anim and compare what three-vrm ends up with against the anim; write a screenshot.
//
//   node check.mjs URL ANIM.json OUT.png [FRAME ...]
//
// Then it plays from 1 s for a moment, pauses, and compares the held values with the
// anim at the time reached; and checks that two frames render differently.
// Prints one JSON report on stdout (crates/omote-cli/tests/view.rs asserts on it) and
// exits 1 when a check fails. Frames default to 0, the last frame, for a few channels
// the frame where each peaks, and the frame where the override rules change the face
// most (`appliedExpressions` against `expressions`). "The anim's value" is what the face
// shows: `appliedExpressions`, or `expressions` in an anim without it. Per frame:
//   - every model expression's value as three-vrm holds it (`expression.weight`) equals
//     the anim's value (|Δ| ≤ 1e-3);
//   - every morph target has the influence Σ bind.weight × the anim's value (three-vrm's
//     output weight: binary expressions rounded) (|Δ| ≤ 1e-3): what three-vrm shows is
//     what the face shows, also for the targets of blinks and vowels that an override
//     damps (`morphsOverridden` counts them) — damped once, not twice;
//   - the raw head bone's rotation relative to rest (after three-vrm copies the normalised
//     pose to the raw bones) equals the anim's head; each raw eye equals head × anim eye.
// Chromium: /usr/bin/chromium (Debian), or CHROMIUM=path. Versions pinned in package-lock.json.
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const TOL = 1e-3;
const [url, animPath, pngPath, ...frameArgs] = process.argv.slice(2);
if (!url || !animPath || !pngPath) {
  console.error('usage: node check.mjs URL ANIM.json OUT.png [FRAME ...]');
  process.exit(2);
}
const anim = JSON.parse(readFileSync(animPath, 'utf8'));
const frames = anim.head.length;
const applied = anim.appliedExpressions || anim.expressions;

function peak(name) {
  const track = applied[name];
  if (!track) return null;
  let best = 0;
  track.forEach((v, i) => { if (v > track[best]) best = i; });
  return best;
}
let chosen = frameArgs.map(Number);
if (chosen.length === 0) {
  chosen = [0, frames - 1, ...['happy', 'aa', 'oh', 'blink', 'surprised', 'mouthLeft', 'lookLeft'].map(peak)];
  // The frame where the override rules change the face most.
  let most = null;
  let mostDiff = 0;
  for (let i = 0; i < frames; i += 1) {
    let d = 0;
    for (const [name, track] of Object.entries(anim.expressions)) d += Math.abs(track[i] - applied[name][i]);
    if (d > mostDiff) { mostDiff = d; most = i; }
  }
  if (most !== null) chosen.push(most);
}
chosen = [...new Set(chosen.filter((f) => Number.isInteger(f) && f >= 0 && f < frames))].sort((a, b) => a - b);

const quatMul = (a, b) => [
  a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
];
/** Largest component difference of two rotations (q and -q are the same rotation). */
function quatErr(a, b) {
  const dot = a.reduce((s, v, i) => s + v * b[i], 0);
  const s = dot < 0 ? -1 : 1;
  return Math.max(...a.map((v, i) => Math.abs(v - s * b[i])));
}
const clamp01 = (x) => Math.min(1, Math.max(0, x));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  ],
});
const failures = [];
const report = { url, frames: [], consoleErrors: [], failures };
try {
  const page = await browser.newPage({ viewport: { width: 640, height: 480 } });
  page.on('console', (m) => { if (m.type() === 'error') report.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => report.consoleErrors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.omoteViewer && (window.omoteViewer.ready || window.omoteViewer.error),
    null, { timeout: 60000 });
  const error = await page.evaluate(() => window.omoteViewer.error);
  if (error) throw new Error(`viewer failed to load: ${error}`);
  report.info = await page.evaluate(() => window.omoteViewer.info());
  report.webgl = await page.evaluate(() => {
    const gl = document.getElementById('view').getContext('webgl2');
    return gl ? gl.getParameter(gl.VERSION) : null;
  });

  for (const frame of chosen) {
    const t = frame / anim.fps;
    await page.evaluate((t) => window.omoteViewer.seek(t), t);
    const [exprs, morphs, bones] = await page.evaluate(() => [
      window.omoteViewer.expressions(), window.omoteViewer.morphs(), window.omoteViewer.bones()]);
    const value = (tracks, name) => clamp01(tracks[name] ? tracks[name][frame] : 0);
    const animValue = (name) => value(applied, name);
    const r = { frame, t, weightsCompared: 0, weightMaxErr: 0, morphsCompared: 0,
      morphsNonZero: 0, morphsOverridden: 0, morphMaxErr: 0, overridesOn: [] };

    // Values as set: the applied weights.
    for (const e of exprs) {
      if (!(e.name in applied)) continue;
      const err = Math.abs(e.weight - animValue(e.name));
      r.weightsCompared += 1;
      r.weightMaxErr = Math.max(r.weightMaxErr, err);
      if (err > TOL) failures.push(`frame ${frame}: ${e.name} is ${e.weight} in three-vrm, ${animValue(e.name)} in the anim`);
    }
    // Override settings three-vrm still has (the page switches its rules off; reported,
    // not trusted: the morph targets below show what three-vrm did).
    const on = new Set();
    for (const e of exprs) {
      if (e.overrideBlink !== 'none') on.add('blink');
      if (e.overrideLookAt !== 'none') on.add('lookAt');
      if (e.overrideMouth !== 'none') on.add('mouth');
    }
    r.overridesOn = [...on];
    // Morph targets: the influences three-vrm wrote into the meshes, against what the
    // face shows; three-vrm's output weight rounds binary expressions.
    const output = (e, v) => (e.isBinary ? (v > 0.5 ? 1 : 0) : v);
    const contributors = new Map();
    for (const e of exprs) {
      for (const b of e.morphBinds) {
        if (!contributors.has(b.target)) contributors.set(b.target, []);
        contributors.get(b.target).push([e, b.weight]);
      }
    }
    for (const [target, list] of contributors) {
      const expected = list.reduce((s, [e, w]) => s + w * output(e, animValue(e.name)), 0);
      const beforeRules = list.reduce((s, [e, w]) => s + w * output(e, value(anim.expressions, e.name)), 0);
      const got = morphs[target];
      const err = Math.abs(got - expected);
      r.morphsCompared += 1;
      if (expected > 0.01) r.morphsNonZero += 1;
      if (Math.abs(expected - beforeRules) > 0.01) r.morphsOverridden += 1;
      r.morphMaxErr = Math.max(r.morphMaxErr, err);
      if (!(err <= TOL)) failures.push(`frame ${frame}: morph ${target} is ${got}, expected ${expected} from ${list.map(([e]) => e.name).join('+')}`);
    }
    // Bones, read back from the raw skeleton three-vrm drives.
    const head = anim.head[frame];
    r.headErr = quatErr(bones.raw.head, head);
    if (!(r.headErr <= TOL)) failures.push(`frame ${frame}: raw head ${bones.raw.head} != anim head ${head}`);
    if (bones.normalized.neck) {
      const chain = quatMul(bones.normalized.neck, bones.normalized.head);
      const err = quatErr(chain, head);
      if (!(err <= TOL)) failures.push(`frame ${frame}: neck × head ${chain} != anim head ${head}`);
    }
    r.eyeErr = 0;
    for (const [bone, track] of [['leftEye', anim.leftEye], ['rightEye', anim.rightEye]]) {
      if (!bones.raw[bone]) continue;
      const expected = quatMul(head, track[frame]);
      const err = quatErr(bones.raw[bone], expected);
      r.eyeErr = Math.max(r.eyeErr, err);
      if (!(err <= TOL)) failures.push(`frame ${frame}: raw ${bone} ${bones.raw[bone]} != head × anim eye ${expected}`);
    }
    r.eyeYawDeg = bones.raw.leftEye
      ? 2 * Math.asin(Math.max(-1, Math.min(1, quatMul([-head[0], -head[1], -head[2], head[3]], bones.raw.leftEye)[1]))) * 180 / Math.PI
      : null;
    report.frames.push(r);
  }

  // Playback runs: play for a moment from 1 s, pause; the held pose is the anim's at
  // the time reached (between frames: linear, like the player).
  await page.evaluate(() => { window.omoteViewer.seek(1); window.omoteViewer.play(); });
  await page.waitForTimeout(600);
  const played = await page.evaluate(() => { window.omoteViewer.pause(); return window.omoteViewer.time(); });
  await page.waitForTimeout(200); // paused frames keep applying the held pose
  const held = await page.evaluate(() => window.omoteViewer.expressions());
  const x = played * anim.fps;
  const i0 = Math.min(Math.floor(x), frames - 1);
  const i1 = Math.min(i0 + 1, frames - 1);
  const f = i1 === i0 ? 0 : x - i0;
  report.playback = { from: 1, to: played, weightMaxErr: 0 };
  if (!(played > 1.05)) failures.push(`playback did not advance: t = ${played} after 0.6 s from 1 s`);
  for (const e of held) {
    const track = applied[e.name];
    if (!track) continue;
    const expected = clamp01(track[i0] + (track[i1] - track[i0]) * f);
    const err = Math.abs(e.weight - expected);
    report.playback.weightMaxErr = Math.max(report.playback.weightMaxErr, err);
    if (!(err <= TOL)) failures.push(`playback paused at ${played} s: ${e.name} is ${e.weight}, anim ${expected}`);
  }

  // The picture changes with the face: the most expressive chosen frame against frame 0.
  const later = report.frames.filter((r) => r.frame !== 0);
  const busiest = later.reduce((a, b) => (b.morphsNonZero > a.morphsNonZero ? b : a),
    later[0] || { frame: Math.min(frames - 1, Math.round(anim.fps)) });
  const shot = async (frame) => {
    await page.evaluate((t) => window.omoteViewer.seek(t), frame / anim.fps);
    return page.screenshot({ type: 'png' });
  };
  const rest = await shot(0);
  const busy = await shot(busiest.frame);
  report.screenshotFrame = busiest.frame;
  report.screenshotsDiffer = !rest.equals(busy);
  if (!report.screenshotsDiffer) failures.push(`frames 0 and ${busiest.frame} render identically`);
  await page.screenshot({ path: pngPath, type: 'png' });
  report.screenshot = pngPath;
  if (report.consoleErrors.length) failures.push(`console errors: ${report.consoleErrors.join(' | ')}`);
} catch (e) {
  failures.push(String(e && e.stack ? e.stack : e));
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report, null, 1) + '\n');
process.exit(failures.length ? 1 : 0);
