// Test helper: the npm package's example page (web/example) in headless Chromium with
// the real three-vrm. Serves the repository root itself (and AVATAR.vrm as
// /web/example/avatar.vrm), then checks: the avatar loads; it blinks at least twice in
// 10 s and its eyes move; saying the line opens the mouth in the voiced span (three-vrm's
// vowel weights follow the analysis) and closes it after the hand-over.
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
    '--autoplay-policy=no-user-gesture-required', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 480, height: 360 } });
  page.on('console', (m) => { if (m.type() === 'error') report.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => report.consoleErrors.push(String(e)));
  await page.goto(base);
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
  if (report.consoleErrors.length) failures.push(`console errors: ${report.consoleErrors.join(' | ')}`);
} catch (e) {
  failures.push(String(e && e.stack ? e.stack : e));
} finally {
  await browser.close();
  server.close();
}
console.log(JSON.stringify(report));
process.exit(failures.length ? 1 : 0);
