// Test helper: open the page of a running `omote live --view` in headless Chromium,
// see frames arrive over the WebSocket, and screenshot the face with the mouth closed
// and open (the replayed tracking opens it).
//
//   node live.mjs URL OUT_DIR [restart]
//
// With `restart` it also prints RESTART on stderr once the first checks are done and
// expects the page to reconnect to a new process on the same address.
//
// Writes OUT_DIR/closed.png, OUT_DIR/closed2.png (closed again, a lap later) and
// OUT_DIR/open.png (the face region), OUT_DIR/transparent.png (the whole `?transparent=1`
// page, for OBS, with its alpha), and prints one JSON report on stdout
// (crates/omote-cli/tests/live.rs compares the pictures and asserts on the report).
// Exits 1 when a check fails. Chromium: /usr/bin/chromium, or CHROMIUM=path.
import { chromium } from 'playwright-core';

const [url, outDir, mode] = process.argv.slice(2);
const restart = mode === 'restart';
if (!url || !outDir) {
  console.error('usage: node live.mjs URL OUT_DIR');
  process.exit(2);
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
const live = (page) => page.evaluate(() => ({
  ready: window.omoteLive.ready,
  connected: window.omoteLive.connected,
  frames: window.omoteLive.frames,
  error: window.omoteLive.error,
  aa: window.omoteLive.expressions().aa ?? null,
  last: window.omoteLive.last,
}));

/** Polls `pred(state)` every 20 ms for up to `ms`; the state that passed, or null. */
async function waitFor(page, pred, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const s = await live(page);
    if (pred(s)) return s;
    await page.waitForTimeout(20);
  }
  return null;
}

try {
  const page = await browser.newPage({ viewport: { width: 640, height: 480 } });
  page.on('console', (m) => { if (m.type() === 'error') report.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => report.consoleErrors.push(String(e)));
  await page.goto(url);
  const ready = await waitFor(page, (s) => s.ready && s.frames > 5 && s.aa !== null, 60000);
  if (!ready) {
    failures.push(`the page did not load the avatar and get frames: ${JSON.stringify(await live(page))}`);
  } else {
    // Frames keep arriving: count them over one second.
    const f0 = (await live(page)).frames;
    await page.waitForTimeout(1000);
    const s1 = await live(page);
    report.framesPerSecond = s1.frames - f0;
    report.status = s1.last.status;
    report.channels = s1.last.w.length;
    if (report.framesPerSecond < 20) failures.push(`only ${report.framesPerSecond} frames in 1 s`);
    const clip = { x: 220, y: 120, width: 200, height: 240 };
    const shoot = async (name) => page.screenshot({ path: `${outDir}/${name}.png`, clip });
    // A picture in a state: taken once the mouth is there, kept only if it is still
    // there after the shot (a busy machine can take long enough for the mouth to move).
    const shootWhen = async (name, pred) => {
      for (let attempt = 0; attempt < 4; attempt++) {
        const s = await waitFor(page, pred, 20000);
        if (!s) return null;
        await shoot(name);
        const after = await live(page);
        if (pred(after)) return s;
        await waitFor(page, (x) => !pred(x), 20000);
      }
      return null;
    };
    const closed = await shootWhen('closed', (s) => s.aa < 0.02);
    if (!closed) failures.push('the mouth never closed');
    else report.closedAa = closed.aa;
    const open = await shootWhen('open', (s) => s.aa > 0.5);
    if (!open) failures.push('the mouth never opened (aa > 0.5)');
    else report.openAa = open.aa;
    await waitFor(page, (s) => s.aa > 0.5, 20000);
    if (!(await shootWhen('closed2', (s) => s.aa < 0.02))) failures.push('the mouth did not close again');
  }
  // The OBS page: the same avatar with nothing behind it (alpha kept).
  const obs = await browser.newPage({ viewport: { width: 640, height: 480 } });
  obs.on('pageerror', (e) => report.consoleErrors.push(String(e)));
  await obs.goto(new URL('?transparent=1', url).href);
  if (!(await waitFor(obs, (s) => s.ready && s.frames > 5, 60000))) failures.push('the transparent page got no frames');
  else {
    report.transparentHud = await obs.evaluate(() => getComputedStyle(document.getElementById('hud')).display);
    await obs.screenshot({ path: `${outDir}/transparent.png`, omitBackground: true });
  }
  // The process restarts (the test kills it when told on stderr and starts another on
  // the same address): the page reconnects by itself and frames flow again.
  if (restart && ready) {
    const before = await live(page);
    console.error('RESTART');
    const back = await waitFor(page, (s) => s.connected && s.frames > before.frames + 10
      , 60000);
    report.reconnects = await page.evaluate(() => window.omoteLive.reconnects);
    if (!back || report.reconnects < 1) failures.push(`no reconnect after the restart: ${JSON.stringify(await live(page))}`);
  }
  if (report.consoleErrors.length) failures.push(`console errors: ${report.consoleErrors.join(' | ')}`);
} catch (e) {
  failures.push(String(e && e.stack ? e.stack : e));
} finally {
  await browser.close();
}
console.log(JSON.stringify(report));
process.exit(failures.length ? 1 : 0);
