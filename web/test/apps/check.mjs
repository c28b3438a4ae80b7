// The npm package in bundled apps (web/test/apps): packs web/ with `npm pack`, and for
// each of Vite and webpack installs the app's pinned tools (`npm ci`) and the tarball,
// makes a production build of ./src, serves it on loopback and opens it in headless
// Chromium with a fake microphone playing a voice line (and a calibrated voice profile
// given to it). Prints one JSON report
// ({ apps: { vite: …, webpack: … }, failures }); exits 1 on a failure.
//
//   node web/test/apps/check.mjs REPO [vite|webpack …]
//
// Needs web/dist (web/build.sh), npm, tools/viewer-check/node_modules (playwright-core)
// and Chromium (/usr/bin/chromium or CHROMIUM).
import http from 'node:http';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

const [root, ...only] = process.argv.slice(2);
const apps = only.length ? only : ['vite', 'webpack'];
const here = path.join(root, 'web/test/apps');
const line = path.join(root, 'examples/scenes/demo/voice/aoi_1.wav');
const { chromium } = await import(path.join(root, 'tools/viewer-check/node_modules/playwright-core/index.mjs'));
const failures = [];
const report = { apps: {}, failures };
const sh = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });

const packDir = mkdtempSync(path.join(tmpdir(), 'omote-pack-'));
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.wav': 'audio/wav' };
try {
  const [packed] = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', packDir], path.join(root, 'web')));
  const tarball = path.join(packDir, packed.filename);
  report.packageBytesGzipped = packed.size;
  for (const app of apps) {
    const dir = path.join(here, app);
    const t0 = Date.now();
    const r = (report.apps[app] = {});
    try {
      sh('npm', ['ci', '--no-audit', '--no-fund'], dir);
      sh('npm', ['install', '--no-save', '--no-audit', '--no-fund', tarball], dir);
      mkdirSync(path.join(dir, 'public'), { recursive: true });
      copyFileSync(line, path.join(dir, 'public/line.wav'));
      sh('npm', ['run', 'build'], dir);
      r.buildS = (Date.now() - t0) / 1000;
      Object.assign(r, await check(path.join(dir, 'dist')));
    } catch (e) {
      failures.push(`${app}: ${(e.stderr || '') + (e.message || e)}`.slice(0, 2000));
      continue;
    }
    const fail = (what) => failures.push(`${app}: ${what}`);
    const res = r.result || {};
    if (res.error) { fail(res.error); continue; }
    if (!(res.line && res.line.meanMouthVoiced > 0.3)) fail(`the voice line did not open the mouth: ${JSON.stringify(res.line)}`);
    if (!(res.line && res.line.maxMouthAfter < 0.05)) fail(`the mouth stayed open after the line: ${JSON.stringify(res.line)}`);
    if (!(res.mic && res.mic.frames > 100 && res.mic.maxMouth > 0.3)) fail(`the microphone did not drive the mouth: ${JSON.stringify(res.mic)}`);
    if (!(res.mic && res.mic.tracksEndedAfterStop)) fail('mic.stop() left a live track');
    const p = res.profile || {};
    if (!(String(p.calibrated).includes('calibrated on') && p.refused.includes('heard 3 syllables, the card has 4'))) fail(`calibrateVoice: ${JSON.stringify(p)}`);
    if (!(p.frames > 50 && p.maxMouth < 0.05)) fail(`the microphone's worklet did not read with the given profile: ${JSON.stringify(p)}`);
    if (!(res.failedStart && res.failedStart.threw && res.failedStart.gotStream && res.failedStart.liveTracks === 0)) fail(`a failed start: ${JSON.stringify(res.failedStart)}`);
    if (r.consoleErrors.length) fail(`console errors: ${r.consoleErrors.join(' | ')}`);
    r.totalS = (Date.now() - t0) / 1000;
  }
} finally {
  rmSync(packDir, { recursive: true, force: true });
}
console.log(JSON.stringify(report));
process.exit(failures.length ? 1 : 0);

async function check(dist) {
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.join(dist, path.normalize(rel.endsWith('/') ? `${rel}index.html` : rel));
    if (!file.startsWith(dist)) { res.writeHead(403).end(); return; }
    let body;
    try { body = readFileSync(file); } catch { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' }).end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--autoplay-policy=no-user-gesture-required', '--no-first-run',
      '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-audio-capture=${line}`],
  });
  const consoleErrors = [];
  try {
    const page = await browser.newPage();
    // The failed start's 404 is expected; anything else the page logs as an error is not.
    page.on('console', (m) => { if (m.type() === 'error' && !/404|no-such-worklet/.test(m.text())) consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => window.omoteResult, null, { timeout: 60000 });
    return { result: await page.evaluate(() => window.omoteResult), consoleErrors };
  } finally {
    await browser.close();
    server.close();
  }
}
