// Test helper: the npm package's example page (web/example) in headless Chromium with
// the real three-vrm. Serves the repository root itself (and AVATAR.vrm as
// /web/example/avatar.vrm), then checks: the avatar loads; it blinks at least twice in
// 10 s and its eyes move; saying the line opens the mouth in the voiced span (three-vrm's
// vowel weights follow the analysis) and closes it after the hand-over. Then the live
// path: the line played by an <audio> element through the package's AudioWorklet at
// 48 kHz gives vowel frames within tolerance of the offline analysis, within 25 ms, and
// moves three-vrm's mouth. Last, speed in Chromium (reported, not checked).
//
//   node web-example.mjs REPO_ROOT AVATAR.vrm
//
// Prints one JSON report; exits 1 when a check fails. Chromium: /usr/bin/chromium or CHROMIUM.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright-core';

const [root, avatar] = process.argv.slice(2);
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.wav': 'audio/wav', '.vrm': 'model/gltf-binary' };
const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  const rel = url.pathname.endsWith('/') ? `${url.pathname}index.html` : url.pathname;
  const file = rel === '/web/example/avatar.vrm' ? avatar : path.join(root, path.normalize(rel));
  if (!file.startsWith(root) && file !== avatar) { res.writeHead(403).end(); return; }
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' }).end(body);
  } catch { res.writeHead(404).end(); }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}/web/example/`;

const failures = [];
const report = { failures, consoleErrors: [] };
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
    '--autoplay-policy=no-user-gesture-required', '--no-first-run',
    // The microphone button's path: a fake capture device that plays the bundled line.
    '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream',
    `--use-file-for-fake-audio-capture=${path.join(root, 'examples/scenes/demo/voice/aoi_1.wav')}`],
});
try {
  const page = await browser.newPage({ viewport: { width: 480, height: 360 } });
  page.on('console', (m) => { if (m.type() === 'error') report.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => report.consoleErrors.push(String(e)));
  await page.goto(`${base}?rate=48000`);
  await page.waitForFunction(() => window.omoteExample && (window.omoteExample.ready || window.omoteExample.error), null, { timeout: 60000 });
  const err = await page.evaluate(() => window.omoteExample.error);
  if (err) throw new Error(err);
  // Its first 10 s (of the face's own time: a slow machine draws fewer frames, not
  // fewer seconds) on its own: blinks and glances.
  await page.waitForFunction(() => window.omoteExample.faceTime >= 10, null, { timeout: 120000, polling: 20 });
  const idle = await page.evaluate(() => {
    const ex = window.omoteExample;
    const yaws = ex.gazes.map((g) => g[0]);
    return { blinks: ex.blinks, yawRange: Math.max(...yaws) - Math.min(...yaws) };
  });
  report.blinksIn10s = idle.blinks;
  report.gazeYawRangeDeg = idle.yawRange;
  if (report.blinksIn10s < 2) failures.push(`${report.blinksIn10s} blinks in 10 s`);
  if (idle.yawRange < 0.5) failures.push(`the eyes did not move (yaw range ${idle.yawRange}°)`);
  // The line: sample the mouth against the analysis.
  await page.click('#say');
  const { voicedStart, voicedEnd, fps } = await page.evaluate(() => {
    const a = window.omoteExample.analysis;
    return { voicedStart: a.voicedStart, voicedEnd: a.voicedEnd, fps: a.fps };
  });
  const samples = [];
  for (;;) {
    const s = await page.evaluate(() => {
      const ex = window.omoteExample;
      const w = ex.weights();
      const t = ex.lineTime();
      const k = Math.floor(t * ex.analysis.fps);
      const f = ex.analysis.frames;
      const vowels = k * 6 + 5 < f.length ? Math.max(f[6 * k], f[6 * k + 1], f[6 * k + 2], f[6 * k + 3], f[6 * k + 4]) : 0;
      return { t, mouth: w.aa + w.ih + w.ou + w.ee + w.oh, analysed: vowels };
    });
    samples.push(s);
    if (s.t > voicedEnd + 1.5) break;
    await page.waitForTimeout(40);
  }
  const during = samples.filter((s) => s.t > voicedStart + 0.1 && s.t < voicedEnd - 0.1 && s.analysed > 0.5);
  const after = samples.filter((s) => s.t > voicedEnd + 0.8);
  report.voiced = [voicedStart, voicedEnd];
  report.fps = fps;
  report.meanMouthVoiced = during.reduce((a, s) => a + s.mouth, 0) / Math.max(1, during.length);
  report.maxMouthAfter = Math.max(0, ...after.map((s) => s.mouth));
  report.samples = samples.length;
  if (during.length < 5) failures.push(`only ${during.length} samples in the voiced span`);
  if (report.meanMouthVoiced < 0.3) failures.push(`the mouth did not open in the voiced span (${report.meanMouthVoiced})`);
  if (after.length === 0 || report.maxMouthAfter > 0.05) failures.push(`the mouth did not close after the hand-over (${report.maxMouthAfter})`);

  // A worklet started from a Speaker's voice seed, and one given a broken seed.
  report.workletSeed = await page.evaluate(() => window.omoteExample.checkWorkletSeed());
  if (report.workletSeed.seedLength !== 13) failures.push(`voiceSeed gave ${report.workletSeed.seedLength} numbers`);
  if (!report.workletSeed.seededStarted) failures.push('the worklet did not start from a voice seed');
  if (!String(report.workletSeed.badSeedError).includes('a voice seed is 13 numbers')) failures.push(`a broken seed: ${report.workletSeed.badSeedError}`);

  // The live path (the microphone's) fed by an <audio> element.
  const live = await page.evaluate(() => window.omoteExample.playThroughWorklet());
  const offline = await page.evaluate(() => {
    const a = window.omoteExample.analysis;
    return { frames: Array.from(a.frames), silent: Array.from(a.silent) };
  });
  const nLive = live.frames.length / 8;
  const nOff = offline.frames.length / 6;
  const dominant = (f, i, stride) => {
    let best = 0;
    for (let k = 1; k < 6; k++) if (f[i * stride + k] > f[i * stride + best]) best = k;
    return best;
  };
  // The element starts some frames after the worklet, not on a frame boundary: align
  // by the lag that best matches (voiced frames, dominant vowels), and count a vowel as
  // the same when the offline one matches within a frame (the sub-frame offset).
  const compare = (L) => {
    let compared = 0, voicedSame = 0, both = 0, vowelSame = 0, vowelNear = 0;
    for (let i = 0; i < nOff && i + L < nLive; i++) {
      const lv = live.frames[(i + L) * 8 + 7] === 1, ov = offline.silent[i] === 0;
      compared++;
      voicedSame += lv === ov;
      if (lv && ov) {
        both++;
        const d = dominant(live.frames, i + L, 8);
        vowelSame += d === dominant(offline.frames, i, 6);
        vowelNear += [i - 1, i, i + 1].some((j) => j >= 0 && j < nOff && offline.silent[j] === 0 && d === dominant(offline.frames, j, 6));
      }
    }
    return { compared, voicedSame, both, vowelSame, vowelNear };
  };
  let lag = 0, best = null;
  for (let L = 0; L < Math.min(300, nLive); L++) {
    const c = compare(L);
    if (!best || c.voicedSame + c.vowelNear > best.voicedSame + best.vowelNear) { best = c; lag = L; }
  }
  const { compared, voicedSame, both, vowelSame, vowelNear } = best;
  const liveVoicedMouth = live.mouth.filter((m) => m.voiced);
  report.live = {
    sampleRate: live.sampleRate, frames: nLive, lagFrames: lag, compared,
    voicedAgree: voicedSame / Math.max(1, compared), vowelAgree: vowelSame / Math.max(1, both), vowelAgreeWithinFrame: vowelNear / Math.max(1, both), bothVoiced: both,
    latencyMs: { algorithmic: live.latency.algorithmicS * 1000, mean: live.latency.meanS * 1000, max: live.latency.maxS * 1000 },
    meanMouthVoiced: liveVoicedMouth.reduce((a, m) => a + m.mouth, 0) / Math.max(1, liveVoicedMouth.length),
  };
  if (live.sampleRate !== 48000) failures.push(`the context ran at ${live.sampleRate} Hz, not 48000`);
  if (compared < nOff * 0.9) failures.push(`live frames cover ${compared} of ${nOff} offline frames`);
  if (report.live.voicedAgree < 0.9) failures.push(`live voiced frames agree ${report.live.voicedAgree}`);
  if (report.live.vowelAgreeWithinFrame < 0.8) failures.push(`live dominant vowels agree ${report.live.vowelAgreeWithinFrame} (within a frame)`);
  if (live.latency.maxS > 0.025) failures.push(`live latency up to ${live.latency.maxS * 1000} ms`);
  if (liveVoicedMouth.length < 5 || report.live.meanMouthVoiced < 0.3) failures.push(`the live voice did not open the mouth (${report.live.meanMouthVoiced})`);

  // The microphone button (getUserMedia on the fake device playing the line).
  await page.click('#mic');
  await page.waitForFunction(() => window.omoteExample.mic && window.omoteExample.mic.frames > 0, null, { timeout: 20000 });
  const mic = await page.evaluate(async () => {
    const ex = window.omoteExample;
    let maxMouth = 0, voiced = 0, n = 0;
    for (let k = 0; k < 60; k++) {
      await new Promise((r) => setTimeout(r, 50));
      const w = ex.weights();
      maxMouth = Math.max(maxMouth, w.aa + w.ih + w.ou + w.ee + w.oh);
      voiced += ex.mic.frame().voiced;
      n++;
    }
    return { frames: ex.mic.frames, voicedShare: voiced / n, maxMouth, latencyMs: ex.mic.latency.maxS * 1000, label: document.getElementById('live').textContent };
  });
  await page.click('#mic');
  report.mic = mic;
  if (mic.frames < 200 || mic.voicedShare < 0.1 || mic.maxMouth < 0.3) failures.push(`the microphone did not drive the mouth: ${JSON.stringify(mic)}`);

  // Speed in Chromium (the same wasm): reported only.
  report.speed = await page.evaluate(async () => {
    const { Face, LiveVoice, analyseVoice } = await import('omote');
    const face = new Face({ presets: true }, { seed: 1 });
    for (let i = 0; i < 2000; i++) face.update(1 / 60);
    const n = 100000;
    let t = performance.now();
    for (let i = 0; i < n; i++) face.update(1 / 60);
    const faceUpdateUs = ((performance.now() - t) * 1000) / n;
    t = performance.now();
    for (let i = 0; i < n; i++) { face.update(1 / 60); face.weights(); face.rotations(); }
    const faceUpdateReadUs = ((performance.now() - t) * 1000) / n;
    face.free();
    const a = window.omoteExample.analysis;
    const samples = new Float32Array(Math.round(a.duration * 48000));
    const ctxBuffer = await new AudioContext({ sampleRate: 48000 }).decodeAudioData(await (await fetch('../../examples/scenes/demo/voice/aoi_1.wav')).arrayBuffer());
    samples.set(ctxBuffer.getChannelData(0).subarray(0, samples.length));
    t = performance.now();
    for (let k = 0; k < 5; k++) analyseVoice(samples, 48000);
    const analyseRealTime = (5 * samples.length / 48000) / ((performance.now() - t) / 1000);
    const voice = new LiveVoice(48000);
    const q = new Float32Array(128);
    t = performance.now();
    let quanta = 0;
    for (let k = 0; k < 5; k++) for (let i = 0; i + 128 <= samples.length; i += 128) { q.set(samples.subarray(i, i + 128)); voice.push(q); quanta++; }
    const livePushUsPerQuantum = ((performance.now() - t) * 1000) / quanta;
    voice.free();
    return { faceUpdateUs, faceUpdateReadUs, analyseRealTime, livePushUsPerQuantum, liveRealTime: (128 / 48000 * 1e6) / livePushUsPerQuantum };
  });
  if (report.consoleErrors.length) failures.push(`console errors: ${report.consoleErrors.join(' | ')}`);
} catch (e) {
  failures.push(String(e && e.stack ? e.stack : e));
} finally {
  await browser.close();
  server.close();
}
console.log(JSON.stringify(report));
process.exit(failures.length ? 1 : 0);
