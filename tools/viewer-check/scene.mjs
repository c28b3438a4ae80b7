// Test helper: open a running `omote view SCENE.toml` in headless Chromium and check the
// scene player; write a screenshot.
//
//   node scene.mjs URL OUT.png
//
// Checks (crates/omote-cli/tests/view_scene.rs asserts on the report):
//   - every character's VRM loads and every voice file decodes (window.omoteStatus);
//   - pressing Play (a real click: the gesture audio needs) a little before the first
//     voiced span runs the audio clock and schedules the voices; sampled through that
//     span, every vowel three-vrm holds for the speaker equals the anim's applied value
//     at the page's time (|Δ| ≤ 1e-3), and the mouth opens (the largest vowel);
//   - inside the unattended bake's wait, the page shows it waiting;
//   - Advance pressed there bakes again with one advance, and the wait holds until it;
//   - Skip pressed in the first line bakes again and cuts that line's voice;
//   - the scene camera: at the middle of three voiced spans (the first two lines and the
//     last, after the wait), the page's camera as window.omoteDebug reports it (position,
//     direction, field of view) and the speaking face's projected height (at least a
//     third of the frame here; the Rust test compares the camera with the scene's path).
//     With SHOTS=DIR, a screenshot at each: DIR/demo-1.png … demo-3.png.
// Prints one JSON report on stdout and exits 1 when a check fails.
// Chromium: /usr/bin/chromium (Debian), or CHROMIUM=path. Versions pinned in package-lock.json.
import { chromium } from 'playwright-core';

const TOL = 1e-3;
const VOWELS = ['aa', 'ih', 'ou', 'ee', 'oh'];
const [url, pngPath] = process.argv.slice(2);
if (!url || !pngPath) {
  console.error('usage: node scene.mjs URL OUT.png');
  process.exit(2);
}

async function getJson(path) {
  const res = await fetch(new URL(path, url));
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.json();
}

/** Linear interpolation of a track at time t, like the player. */
function sample(anim, name, t) {
  const track = (anim.appliedExpressions || anim.expressions)[name];
  if (!track) return 0;
  const n = track.length;
  let x = Math.max(0, t * anim.fps);
  const r = Math.round(x);
  if (Math.abs(x - r) < 1e-6) x = r;
  const i0 = Math.min(Math.floor(x), n - 1);
  const i1 = Math.min(i0 + 1, n - 1);
  const f = i1 === i0 ? 0 : x - i0;
  return Math.min(1, Math.max(0, track[i0] + (track[i1] - track[i0]) * f));
}

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
const report = { url, consoleErrors: [], failures };
const status = (page) => page.evaluate(() => JSON.parse(JSON.stringify(window.omoteStatus)));
try {
  const page = await browser.newPage({ viewport: { width: 800, height: 480 } });
  page.on('console', (m) => { if (m.type() === 'error') report.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => report.consoleErrors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.omoteStatus && (window.omoteStatus.ready || window.omoteStatus.error),
    null, { timeout: 90000 });
  const error = await page.evaluate(() => window.omoteStatus.error);
  if (error) throw new Error(`scene viewer failed to load: ${error}`);
  report.status = await status(page);
  for (const c of report.status.characters) {
    if (!c.loaded) failures.push(`${c.id}: its VRM did not load`);
  }
  const info = await getJson('/scene.json');
  const audioCount = new Set(info.characters.flatMap((c) => c.lines.map((l) => l.audio)).filter(Boolean)).size;
  if (report.status.decoded !== audioCount) failures.push(`decoded ${report.status.decoded} of ${audioCount} voice files`);
  const anims = await Promise.all(info.characters.map((c) => getJson(c.anim)));

  // The scene camera at three lines, paused, before any press.
  const first = await page.evaluate(() => window.omoteScene.bake());
  const voiced = first.voices.filter((v) => v.voicedStart != null);
  report.camera = [];
  for (const [n, v] of [voiced[0], voiced[1], voiced[voiced.length - 1]].entries()) {
    const t = (v.voicedStart + v.voicedEnd) / 2;
    await page.evaluate((x) => window.omoteScene.seek(x), t);
    // Two frames: the pose and the camera are drawn.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const cam = await page.evaluate(() => window.omoteScene.camera());
    const time = (await status(page)).time;
    report.camera.push({ t: time, character: v.character, id: info.characters[v.character].id, ...cam });
    if (cam.mode !== 'scene') failures.push(`t ${time}: the ${cam.mode} camera, not the scene's`);
    if (!cam.face || cam.face.character !== v.character) failures.push(`t ${time}: not framing ${info.characters[v.character].id}: ${JSON.stringify(cam.focus)}`);
    else if (!(cam.face.height >= 1 / 3)) failures.push(`t ${time}: the face is ${cam.face.height} of the frame height`);
    if (process.env.SHOTS) await page.screenshot({ path: `${process.env.SHOTS}/demo-${n + 1}.png`, type: 'png' });
  }
  // The toggle: the free camera (the stage's orbit), then the scene's again.
  await page.click('#camera');
  const free = await page.evaluate(() => window.omoteScene.camera());
  await page.click('#camera');
  const back = await page.evaluate(() => window.omoteScene.camera());
  report.cameraToggle = [free.mode, back.mode];
  if (free.mode !== 'free' || back.mode !== 'scene') failures.push(`the camera toggle went ${free.mode}, then ${back.mode}`);

  // Play from a little before the first voiced span; sample the speaker's mouth.
  const bake = await page.evaluate(() => window.omoteScene.bake());
  const voice = bake.voices.find((v) => v.voicedStart != null);
  if (!voice) throw new Error('the scene has no voiced line');
  await page.evaluate((t) => window.omoteScene.seek(t), Math.max(0, voice.voicedStart - 0.2));
  await page.click('#play');
  await page.waitForFunction(() => window.omoteStatus.playing, null, { timeout: 5000 });
  const play = { character: voice.character, clip: voice.clip, span: [voice.voicedStart, voice.voicedEnd],
    samples: 0, mouthMax: 0, mouthMaxErr: 0 };
  const s0 = await status(page);
  Object.assign(play, { clock: s0.clock, audioState: s0.audioState, scheduledVoices: s0.scheduledVoices });
  if (s0.clock !== 'audio') failures.push(`playing on the ${s0.clock} clock (audio ${s0.audioState}), not the audio clock`);
  if (!(s0.scheduledVoices > 0)) failures.push('play scheduled no voice');
  const stopAt = Math.min(voice.voicedEnd, voice.voicedStart + 1.5);
  for (let k = 0; k < 400; k += 1) {
    const s = await page.evaluate((i) => {
      // One synchronous read: the pose is the last frame's, at omoteStatus.time.
      const st = window.omoteStatus;
      return { t: st.time, playing: st.playing, mouth: window.omoteScene.mouth(i) };
    }, voice.character);
    if (s.t >= voice.voicedStart && s.t <= voice.voicedEnd) {
      play.samples += 1;
      for (const v of VOWELS) {
        const want = sample(anims[voice.character], v, s.t);
        const err = Math.abs(s.mouth[v] - want);
        play.mouthMaxErr = Math.max(play.mouthMaxErr, err);
        play.mouthMax = Math.max(play.mouthMax, s.mouth[v]);
        if (!(err <= TOL)) failures.push(`t ${s.t}: ${v} is ${s.mouth[v]} in three-vrm, ${want} in the anim`);
      }
    }
    if (s.t >= stopAt || !s.playing) break;
    await page.waitForTimeout(40);
  }
  play.reached = (await status(page)).time;
  report.play = play;
  if (play.samples < 3) failures.push(`only ${play.samples} samples inside the voiced span ${play.span}`);
  if (!(play.mouthMax > 0.1)) failures.push(`the mouth never opened during ${voice.clip} (largest vowel ${play.mouthMax})`);
  await page.screenshot({ path: pngPath, type: 'png' });
  report.screenshot = pngPath;
  await page.click('#play'); // pause
  await page.waitForFunction(() => !window.omoteStatus.playing, null, { timeout: 5000 });

  // The unattended bake's wait shows.
  const hold = bake.holds[0];
  if (!hold) throw new Error('the scene has no wait');
  const mid = hold.to == null ? hold.from + 0.05 : (hold.from + hold.to) / 2;
  await page.evaluate((t) => window.omoteScene.seek(t), mid);
  await page.waitForTimeout(100);
  const atWait = await status(page);
  report.wait = { hold, t: atWait.time, waiting: atWait.waiting, text: await page.textContent('#state') };
  if (!atWait.waiting) failures.push(`not waiting at ${atWait.time} inside the hold ${hold.from}..${hold.to}`);
  const before = await status(page);
  if (before.waiting !== true) failures.push('not waiting before the advance');

  // Advance there: a new bake with that press; the wait holds until it.
  await page.click('#advance');
  await page.waitForFunction((n) => window.omoteStatus.bakes > n && !window.omoteStatus.baking, before.bakes, { timeout: 30000 });
  const advanced = await page.evaluate(() => window.omoteScene.bake());
  const afterAdvance = await status(page);
  report.advance = { advances: afterAdvance.advances, holds: advanced.holds, duration: advanced.duration };
  if (afterAdvance.advances.length !== 1) failures.push(`advances after one press: ${afterAdvance.advances}`);
  const h = advanced.holds[0];
  if (!h || h.to == null || Math.abs(h.to - afterAdvance.advances[0]) > 1.5 / info.fps) {
    failures.push(`the wait should hold until the press at ${afterAdvance.advances[0]}: ${JSON.stringify(h)}`);
  }

  // Skip inside the first line: it is cut.
  const firstVoice = bake.voices[0];
  await page.evaluate((t) => window.omoteScene.seek(t), (firstVoice.voicedStart + firstVoice.voicedEnd) / 2);
  await page.click('#skip');
  await page.waitForFunction((n) => window.omoteStatus.bakes > n && !window.omoteStatus.baking, afterAdvance.bakes, { timeout: 30000 });
  const skipped = await page.evaluate(() => window.omoteScene.bake());
  const afterSkip = await status(page);
  const cutVoice = skipped.voices.find((v) => v.character === firstVoice.character && v.clip === firstVoice.clip);
  report.skip = { skips: afterSkip.skips, cut: cutVoice ? cutVoice.cut : null };
  if (afterSkip.skips.length !== 1) failures.push(`skips after one press: ${afterSkip.skips}`);
  if (!cutVoice || cutVoice.cut == null) failures.push(`the skip did not cut ${firstVoice.clip}`);
  report.status = await status(page);
  if (report.consoleErrors.length) failures.push(`console errors: ${report.consoleErrors.join(' | ')}`);
} catch (e) {
  failures.push(String(e && e.stack ? e.stack : e));
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report, null, 1) + '\n');
process.exit(failures.length ? 1 : 0);
