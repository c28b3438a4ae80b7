// The npm package in Node: analyseVoice equals native omote per frame, the face loop is
// deterministic for a seed, bad input throws an Error with a message, and the speed.
//
//   node test/node.test.mjs NATIVE.json
//
// NATIVE.json (written by crates/omote-web/tests/node.rs): [{wav, frames: [[6]…],
// voicedStart, voicedEnd}] from the Rust analyser on the same files. Prints one JSON
// report; exits 1 on a failure.
import { readFile } from 'node:fs/promises';
import { init, analyseVoice, builtinVoiceProfile, calibrateVoice, compiledModule, Face, LiveVoice, listenToMicrophone, Speaker, VOICE_CARD } from '../dist/index.js';
import { attach, rigFromVrm } from '../dist/three-vrm.js';

const failures = [];
const report = { failures };
const expectErrorEarly = (what, fn, text) => {
  try { fn(); failures.push(`${what}: no error`); } catch (e) {
    if (!(e instanceof Error) || !String(e.message).includes(text)) failures.push(`${what}: ${e} (wanted "${text}")`);
  }
};

/** Mono float samples of a 16-bit PCM WAV (channels averaged, /32768 as the Rust decoder). */
function readWav(buf) {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let p = 12, fmt = null, data = null;
  while (p + 8 <= buf.length) {
    const id = buf.toString('ascii', p, p + 4);
    const size = dv.getUint32(p + 4, true);
    if (id === 'fmt ') fmt = { channels: dv.getUint16(p + 10, true), rate: dv.getUint32(p + 12, true), bits: dv.getUint16(p + 22, true) };
    if (id === 'data') data = { start: p + 8, size };
    p += 8 + size + (size & 1);
  }
  if (!fmt || !data || fmt.bits !== 16) throw new Error('only 16-bit PCM WAV here');
  const n = Math.floor(data.size / 2 / fmt.channels);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let c = 0; c < fmt.channels; c++) s += dv.getInt16(data.start + 2 * (i * fmt.channels + c), true) / 32768;
    out[i] = s / fmt.channels;
  }
  return { samples: out, rate: fmt.rate };
}

try {
  // A failed init names itself and says what to do; a later one still loads.
  for (const [what, source, text] of [
    ['init of bytes that are not wasm', new Uint8Array([1, 2, 3]), "init: not omote's wasm module"],
    ['init of a path in Node', '/no/such/omote_web_bg.wasm', 'in Node, pass the bytes'],
  ]) {
    try { await init(source); failures.push(`${what}: no error`); } catch (e) {
      if (!String(e && e.message).includes(text)) failures.push(`${what}: ${e} (wanted "${text}")`);
    }
  }
  await init(await readFile(new URL('../dist/omote_web_bg.wasm', import.meta.url)));
  const { clips: native, live, speaker: speakerNative, card, tracking: trackingNative } = JSON.parse(await readFile(process.argv[2], 'utf8'));
  let maxDiff = 0, frames = 0, audioS = 0, analyseMs = 0;
  for (const clip of native) {
    const { samples, rate } = readWav(await readFile(clip.wav));
    const t0 = performance.now();
    const a = analyseVoice(samples, rate);
    analyseMs += performance.now() - t0;
    audioS += samples.length / rate;
    if (a.frames.length !== clip.frames.length * 6) {
      failures.push(`${clip.wav}: ${a.frames.length / 6} frames, native ${clip.frames.length}`);
      continue;
    }
    clip.frames.forEach((f, i) => f.forEach((v, j) => { maxDiff = Math.max(maxDiff, Math.abs(a.frames[6 * i + j] - v)); }));
    frames += clip.frames.length;
    if ((a.voicedStart === null) !== (clip.voicedStart === null)
      || (a.voicedStart !== null && Math.abs(a.voicedStart - clip.voicedStart) > 0.011)) {
      failures.push(`${clip.wav}: voiced start ${a.voicedStart}, native ${clip.voicedStart}`);
    }
  }
  report.clips = native.length;
  report.frames = frames;
  report.maxFrameDiff = maxDiff;
  report.analyseRealTime = audioS / (analyseMs / 1000);
  if (maxDiff > 1e-3) failures.push(`analysis differs from native by ${maxDiff}`);

  // The live analyser, 128 samples at a time, against the native one on the same audio.
  {
    const { samples, rate } = readWav(await readFile(live.wav));
    const voice = new LiveVoice(rate);
    const out = [];
    const t0 = performance.now();
    for (let i = 0; i < samples.length; i += 128) out.push(...voice.push(samples.subarray(i, i + 128)));
    report.liveRealTime = samples.length / rate / ((performance.now() - t0) / 1000);
    report.liveLatencyMs = voice.latencyS * 1000;
    report.liveFrames = out.length / 8;
    if (out.length !== live.frames.length) failures.push(`LiveVoice: ${out.length / 8} frames, native ${live.frames.length / 8}`);
    report.liveMaxDiff = out.reduce((m, v, i) => Math.max(m, Math.abs(v - live.frames[i])), 0);
    if (!(report.liveMaxDiff <= 1e-3)) failures.push(`LiveVoice differs from native by ${report.liveMaxDiff}`);
    voice.free();
  }

  // A speaker's lines: each against the others, as natively; a line alone reads as
  // analyseVoice reads it, and the others change how it reads.
  {
    const lines = [];
    for (const wav of speakerNative.wavs) lines.push(readWav(await readFile(wav)));
    const speaker = new Speaker();
    for (const l of lines) speaker.addLine(l.samples, l.rate);
    report.speakerLines = speaker.lines;
    report.speakerMaxDiff = 0;
    lines.forEach((l, k) => {
      const a = speaker.analyseVoice(l.samples, l.rate);
      const want = speakerNative.frames[k];
      if (a.frames.length !== want.length) failures.push(`Speaker line ${k}: ${a.frames.length} numbers, native ${want.length}`);
      else report.speakerMaxDiff = a.frames.reduce((m, v, i) => Math.max(m, Math.abs(v - want[i])), report.speakerMaxDiff);
    });
    const plain = analyseVoice(lines[0].samples, lines[0].rate).frames;
    const alone = new Speaker();
    alone.addLine(lines[0].samples, lines[0].rate);
    const same = (x, y) => x.length === y.length && x.every((v, i) => v === y[i]);
    if (!same(alone.analyseVoice(lines[0].samples, lines[0].rate).frames, plain)) failures.push('a Speaker of one line reads it unlike analyseVoice');
    if (same(speaker.analyseVoice(lines[0].samples, lines[0].rate).frames, plain)) failures.push('the other lines did not change how a line reads');
    try { speaker.addLine(new Float32Array(0), 16000); failures.push('Speaker.addLine(empty): no error'); } catch (e) {
      if (!String(e.message).includes('Speaker.addLine: the sample buffer is empty')) failures.push(`Speaker.addLine(empty): ${e}`);
    }
    // A live stream started from this speaker's voice, as the worklet gets it.
    const seed = speaker.voiceSeed();
    if (seed.length !== 13) failures.push(`Speaker.voiceSeed: ${seed.length} numbers`);
    report.seedMaxDiff = Array.from(seed).reduce((m, v, i) => Math.max(m, Math.abs(v - speakerNative.seed[i])), 0);
    {
      const { samples, rate } = readWav(await readFile(live.wav));
      const seeded = new LiveVoice(rate, { speaker });
      const out = [];
      for (let i = 0; i < samples.length; i += 128) out.push(...seeded.push(samples.subarray(i, i + 128)));
      if (out.length !== speakerNative.seededLive.length) failures.push(`seeded LiveVoice: ${out.length / 8} frames, native ${speakerNative.seededLive.length / 8}`);
      report.seededLiveMaxDiff = out.reduce((m, v, i) => Math.max(m, Math.abs(v - speakerNative.seededLive[i])), 0);
      seeded.free();
      try { new LiveVoice(rate, { speaker: [1, 2] }); failures.push('LiveVoice with a bad seed: no error'); } catch (e) {
        if (!String(e.message).includes('a voice seed is 13 numbers')) failures.push(`LiveVoice with a bad seed: ${e}`);
      }
    }
    alone.free();
    speaker.free();
  }

  // A calibration card take: the profile native omote makes from it, and a live stream
  // read with that profile as natively; bad takes and profiles throw with a message.
  {
    const { samples, rate } = readWav(await readFile(card.wav));
    const mine = calibrateVoice(samples, rate, { card: card.text });
    const [got, want] = [JSON.parse(mine), JSON.parse(card.profile)];
    report.cardMeansMaxDiff = got.means.flat().reduce((m, v, i) => Math.max(m, Math.abs(v - want.means.flat()[i])), 0);
    if (JSON.parse(builtinVoiceProfile()).means.flat().every((v, i) => v === got.means.flat()[i])) failures.push('calibrateVoice: the means did not move');
    const l = readWav(await readFile(live.wav));
    const voice = new LiveVoice(l.rate, { profile: mine });
    const out = [];
    for (let i = 0; i < l.samples.length; i += 128) out.push(...voice.push(l.samples.subarray(i, i + 128)));
    if (out.length !== card.live.length) failures.push(`LiveVoice with a profile: ${out.length / 8} frames, native ${card.live.length / 8}`);
    report.cardLiveMaxDiff = out.reduce((m, v, i) => Math.max(m, Math.abs(v - card.live[i])), 0);
    voice.free();
    const a = analyseVoice(l.samples, l.rate, { profile: mine }).frames;
    if (a.every((v, i) => v === analyseVoice(l.samples, l.rate).frames[i])) failures.push('analyseVoice with a profile reads as without');
    const refused = (what, fn, text) => {
      try { fn(); failures.push(`${what}: no error`); } catch (e) {
        if (!(e instanceof Error) || !String(e.message).includes(text)) failures.push(`${what}: ${e} (wanted "${text}")`);
      }
    };
    refused('card heard unlike its text', () => calibrateVoice(samples, rate, { card: 'ka ki' }), 'calibrateVoice: the card take: heard 30 syllables, the card has 2');
    refused('live bad profile', () => new LiveVoice(48000, { profile: '{}' }), 'LiveVoice: the voice profile');
    refused('profile not text', () => analyseVoice(samples, rate, { profile: {} }), "profile must be a lip sync profile's JSON text");
    if (VOICE_CARD.split(' ').length !== 30) failures.push('VOICE_CARD is not 30 syllables');
  }

  // The published worklet is one module with no imports: loaded as a bundler inlines it
  // (a `data:` URL, where a relative import cannot resolve) into a scope shaped like an
  // AudioWorkletGlobalScope (no TextDecoder/TextEncoder), it runs the live analyser and
  // posts the same frames as LiveVoice.
  {
    const code = await readFile(new URL('../dist/voice-worklet.js', import.meta.url), 'utf8');
    if (/^\s*(import|export)\b/m.test(code)) failures.push('dist/voice-worklet.js has an import or export');
    const saved = { TextDecoder: globalThis.TextDecoder, TextEncoder: globalThis.TextEncoder };
    delete globalThis.TextDecoder;
    delete globalThis.TextEncoder;
    let Processor = null;
    Object.assign(globalThis, {
      sampleRate: 48000,
      currentTime: 0,
      registerProcessor: (name, cls) => { if (name === 'omote-voice') Processor = cls; },
      AudioWorkletProcessor: class { constructor() { this.port = { postMessage: (m) => this.port.sent.push(m), sent: [] }; } },
    });
    try {
      await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
      report.workletShimmedTextCodecs = typeof globalThis.TextDecoder === 'function';
    } finally {
      globalThis.TextDecoder = saved.TextDecoder;
      globalThis.TextEncoder = saved.TextEncoder;
    }
    if (!Processor) failures.push('the worklet module registered no omote-voice processor');
    else {
      const { samples, rate } = readWav(await readFile(live.wav));
      const p = new Processor({ processorOptions: { module: compiledModule(), steady: false, speaker: null } });
      const ready = p.port.sent[0];
      if (!ready || ready.type !== 'ready') failures.push(`the worklet did not start: ${JSON.stringify(ready)}`);
      const direct = new LiveVoice(48000);
      let want = [], got = [];
      const out = [[new Float32Array(128)]];
      // The live clip at its own rate, given to a 48 kHz worklet as 48 kHz audio: the
      // same samples into both analysers is all this compares.
      for (let i = 0; i + 128 <= samples.length && i < 48000 * 3; i += 128) {
        const q = samples.slice(i, i + 128);
        p.process([[q]], out);
        want.push(...direct.push(q));
      }
      for (const m of p.port.sent) if (m.type === 'frames') got.push(...m.frames);
      report.workletFrames = got.length / 8;
      if (got.length === 0 || got.length !== want.length || got.some((v, i) => v !== want[i])) {
        failures.push(`the bundled worklet gave ${got.length / 8} frames, LiveVoice ${want.length / 8} (or other values)`);
      }
      direct.free();
      // With a profile in its options, the worklet reads as a LiveVoice with it.
      const shut = JSON.parse(builtinVoiceProfile());
      shut.bias[5] = 50;
      const profiled = new Processor({ processorOptions: { module: compiledModule(), steady: false, speaker: null, profile: JSON.stringify(shut) } });
      const shutDirect = new LiveVoice(48000, { profile: JSON.stringify(shut) });
      want = [];
      got = [];
      for (let i = 0; i + 128 <= samples.length && i < 48000 * 3; i += 128) {
        const q = samples.slice(i, i + 128);
        profiled.process([[q]], out);
        want.push(...shutDirect.push(q));
      }
      for (const m of profiled.port.sent) if (m.type === 'frames') got.push(...m.frames);
      if (got.length === 0 || got.length !== want.length || got.some((v, i) => v !== want[i])) {
        failures.push(`the worklet with a profile gave ${got.length / 8} frames unlike LiveVoice's ${want.length / 8}`);
      }
      report.workletProfiledOpenMax = got.reduce((m, v, i) => (i % 8 < 5 ? Math.max(m, v) : m), 0);
      if (!(report.workletProfiledOpenMax < 0.05)) failures.push(`the worklet ignored its profile (a mouth opened to ${report.workletProfiledOpenMax})`);
      shutDirect.free();
      // A bad seed is reported, not thrown into the audio thread.
      const bad = new Processor({ processorOptions: { module: compiledModule(), speaker: new Float32Array(2) } });
      if (!(bad.port.sent[0] && bad.port.sent[0].type === 'error' && bad.port.sent[0].message.includes('13 numbers'))) {
        failures.push(`the worklet with a bad seed: ${JSON.stringify(bad.port.sent[0])}`);
      }
      void rate;
    }
    for (const k of ['sampleRate', 'currentTime', 'registerProcessor', 'AudioWorkletProcessor']) delete globalThis[k];
  }

  // A microphone start that fails after the microphone opened leaves no live track.
  {
    const tracks = [{ readyState: 'live', stop() { this.readyState = 'ended'; } }];
    const stream = { getTracks: () => tracks };
    Object.defineProperty(globalThis, 'navigator', {
      value: { mediaDevices: { getUserMedia: async () => stream } }, configurable: true, writable: true,
    });
    const context = {
      currentTime: 0,
      audioWorklet: { addModule: async () => { throw new Error('Failed to load worklet module script'); } },
    };
    let handed = null;
    try {
      await listenToMicrophone(context, { onstream: (s) => { handed = s; } });
      failures.push('listenToMicrophone with a worklet that does not load: no error');
    } catch (e) {
      if (!String(e.message).includes('did not load')) failures.push(`listenToMicrophone's error: ${e.message}`);
      report.micFailure = e.message;
    }
    if (handed !== stream) failures.push('onstream was not given the stream');
    if (tracks.some((t) => t.readyState === 'live')) failures.push('a failed listenToMicrophone left the microphone track live');
    delete globalThis.navigator;
  }

  // Tracking from a MediaPipe result (named scores, a column-major matrix, a selfie
  // camera mirrored): the native embedding API's face, step for step.
  {
    const t = trackingNative;
    const f = new Face(JSON.parse(t.rig), { seed: t.seed }).enableTracking(t.settings);
    const result = {
      faceBlendshapes: [{ categories: t.names.map((categoryName, i) => ({ categoryName, score: t.scores[i] })) }],
      facialTransformationMatrixes: [{ rows: 4, columns: 4, data: t.matrix }],
    };
    for (let i = 0; i < 60; i++) f.setTrackedMediaPipe(result).update(1 / 60);
    const w = f.weights();
    const head = Array.from(f.rotations()).slice(0, 4);
    let d = Math.max(...t.weights.map((v, i) => Math.abs(v - w[i])));
    const sign = head.reduce((s, v, i) => s + v * t.head[i], 0) < 0 ? -1 : 1;
    d = Math.max(d, ...head.map((v, i) => Math.abs(sign * v - t.head[i])));
    report.trackingMaxDiff = d;
    if (!(w[f.channels.indexOf('jawOpen')] > 0.4)) failures.push('tracking: jawOpen did not move');
    f.setTrackedMediaPipe({ faceBlendshapes: [], facialTransformationMatrixes: [] }).update(1 / 60);
    expectErrorEarly('calibrate without tracking', () => new Face(JSON.parse(t.rig)).calibrateTracking(1), 'tracking is off');
    expectErrorEarly('a 3×3 matrix', () => f.setTrackedMediaPipe({ facialTransformationMatrixes: [{ data: [1, 0, 0, 0, 1, 0, 0, 0, 1] }] }), '4×4');
    expectErrorEarly('an unknown setting', () => f.enableTracking({ mirrorr: true }), 'enableTracking: the tracking settings: unknown field `mirrorr`');
    expectErrorEarly('a setting out of range', () => f.enableTracking({ limits: { yawDeg: -10 } }), 'limits.yawDeg = -10');
    expectErrorEarly('a setting of the wrong type', () => f.enableTracking({ mirror: 'yes' }), 'the tracking settings: mirror: invalid type: string "yes", expected a boolean');
    expectErrorEarly('a nested setting of the wrong type', () => f.enableTracking({ smoothing: { eyes: 'x' } }), 'the tracking settings: smoothing.eyes: invalid type');
    expectErrorEarly('a one Euro filter missing a number', () => f.enableTracking('{"headFilter": {"minCutoff": 1,\n "beta": 0.1}}'), 'the tracking settings: headFilter: missing field `derivativeCutoff`');
    expectErrorEarly('a NaN setting', () => f.enableTracking({ smoothing: { mouth: NaN } }), 'enableTracking: smoothing.mouth is NaN: not a JSON number');
    expectErrorEarly('a Map of settings', () => f.enableTracking(new Map([['mirror', true]])), 'enableTracking: the settings is a Map');
    expectErrorEarly('a BigInt setting', () => f.enableTracking({ limits: { yawDeg: 10n } }), 'enableTracking: limits.yawDeg is a BigInt');
    const cycle = { mirror: true };
    cycle.self = cycle;
    expectErrorEarly('settings that contain themselves', () => f.enableTracking(cycle), 'enableTracking: self contains itself');
    expectErrorEarly('a JSON array', () => f.enableTracking('[true]'), 'not a JSON object');
    expectErrorEarly('an unknown option', () => new Face(JSON.parse(t.rig), { seeed: 3 }), 'new Face: unknown setting `seeed`');
    expectErrorEarly('bad tracking settings in new Face', () => new Face(JSON.parse(t.rig), { tracking: { mirrorr: true } }), 'new Face: the tracking settings: unknown field `mirrorr`');
    {
      // The settings as JSON text, and given to the constructor: the same face as above.
      const g = new Face(JSON.parse(t.rig), { seed: t.seed, tracking: JSON.stringify(t.settings) });
      const h = new Face(JSON.parse(t.rig), { seed: t.seed, tracking: t.settings });
      for (let i = 0; i < 60; i++) {
        g.setTrackedMediaPipe(result).update(1 / 60);
        h.setTrackedMediaPipe(result).update(1 / 60);
      }
      const same = (a, b) => a.every((v, i) => v === b[i]);
      if (!same(g.weights(), w) || !same(h.weights(), w)) failures.push('tracking settings given as text or to the constructor: other weights');
      new Face(JSON.parse(t.rig), { tracking: true }).calibrateTracking(0.5).free();
      g.free();
      h.free();
    }
    f.calibrateTracking(0.5).announceEyeChange(0.3).requestBlink(0.1).update(1 / 60);
    f.free();
  }

  // The face loop: the same seed, the same weights; another seed, others.
  const rig = { presets: true };
  const run = (seed, n) => {
    const f = new Face(rig, { seed });
    const out = [];
    for (let i = 0; i < n; i++) out.push(Array.from(f.update(1 / 60).weights()));
    f.free();
    return out;
  };
  const [a, b, c] = [run(3, 600), run(3, 600), run(4, 600)];
  if (JSON.stringify(a) !== JSON.stringify(b)) failures.push('the same seed gave different faces');
  if (JSON.stringify(a) === JSON.stringify(c)) failures.push('another seed gave the same face');
  if (!a.flat().every((v) => Number.isFinite(v) && v >= 0 && v <= 1)) failures.push('a weight out of 0..1');

  // Speed: face updates (with reading the weights and rotations back).
  const face = new Face(rig, { seed: 1 });
  for (let i = 0; i < 2000; i++) face.update(1 / 60);
  const n = 100000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) { face.update(1 / 60); face.weights(); face.rotations(); }
  report.faceUpdateUs = ((performance.now() - t0) * 1000) / n;
  const t1 = performance.now();
  for (let i = 0; i < n; i++) face.update(1 / 60);
  report.faceUpdateOnlyUs = ((performance.now() - t1) * 1000) / n;

  // Bad input: Errors with messages, never a trap.
  const expectError = (what, fn, text) => {
    try { fn(); failures.push(`${what}: no error`); } catch (e) {
      if (!(e instanceof Error) || !String(e.message).includes(text)) failures.push(`${what}: ${e} (wanted "${text}")`);
    }
  };
  const tone = new Float32Array(1600).map((_, i) => Math.sin(i / 10) * 0.2);
  expectError('NaN samples', () => analyseVoice(tone.map((v, i) => (i === 9 ? NaN : v)), 16000), 'sample 9 is NaN');
  expectError('rate 0', () => analyseVoice(tone, 0), 'sample rate 0');
  expectError('empty', () => analyseVoice(new Float32Array(0), 16000), 'empty');
  expectError('not a Float32Array', () => analyseVoice([0.1, 0.2], 16000), 'Float32Array');
  expectError('no expressions', () => new Face({ presets: false }), 'no expressions');
  expectError('unknown expression', () => face.setExpression('smug', 1), '`smug`');
  // Any dt is taken (three's first frames give 0 or a negative one): no time passes.
  {
    const before = Array.from(face.update(1 / 60).weights());
    for (const dt of [0, -0.02, NaN]) face.update(dt);
    if (Array.from(face.weights()).some((w, i) => w !== before[i])) failures.push('a zero, negative or NaN dt moved the face');
  }
  // A tab back from the background (dt 5 s) mid-line: one normal frame, the very frame
  // a 1/60 s step gives, so the face does not jump; a first dt of 5 s is one 1/60 s frame.
  {
    const line = { fps: 100, frames: new Float32Array(6 * 230).map((_, i) => (i % 6 === 0 && i >= 60 && i < 1260 ? 0.9 : 0)), voicedStart: 0.1, voicedEnd: 2.1 };
    const twin = () => new Face(rig, { seed: 9 }).say(line);
    const [away, here] = [twin(), twin()];
    const frame = (f) => [...f.weights(), ...f.rotations()];
    let largest = 0;
    let prev = frame(here);
    for (let i = 0; i < 60; i++) {
      away.update(1 / 60);
      here.update(1 / 60);
      const now = frame(here);
      largest = Math.max(largest, ...now.map((v, k) => Math.abs(v - prev[k])));
      prev = now;
    }
    const before = frame(away);
    away.update(5);
    here.update(1 / 60);
    const [a5, h] = [frame(away), frame(here)];
    if (a5.some((v, k) => v !== h[k])) failures.push('a 5 s dt was not one normal frame');
    report.gapJump = Math.max(...a5.map((v, k) => Math.abs(v - before[k])));
    report.normalFrameChange = largest;
    if (!(report.gapJump <= largest)) failures.push(`a 5 s dt jumped ${report.gapJump}, more than a normal frame's ${largest}`);
    const [first, sixtieth] = [twin(), twin()];
    first.update(5);
    sixtieth.update(1 / 60);
    if (frame(first).some((v, k) => v !== frame(sixtieth)[k])) failures.push('a first dt of 5 s was not one 1/60 s frame');
    for (const f of [away, here, first, sixtieth]) f.free();
  }
  // The afterglow: held, then released; cleared at once; a NaN hold is an Error.
  {
    const line = { fps: 100, frames: new Float32Array(6 * 100).map((_, i) => (i % 6 === 0 && i >= 60 && i < 360 ? 0.9 : 0)), voicedStart: 0.1, voicedEnd: 0.6 };
    const g = new Face(rig, { seed: 2 }).setAfterglowTiming(1, 0.5).say(line, { afterglow: { happy: 0.3 } });
    const happy = g.channels.indexOf('happy');
    const after = (s) => { for (let i = 0; i < s * 60; i++) g.update(1 / 60); return g.weights()[happy]; };
    report.afterglowAt1_5s = after(1.5);
    report.afterglowAt3s = after(1.5);
    if (!(report.afterglowAt1_5s > 0.25 && report.afterglowAt3s < 0.01)) failures.push(`afterglow hold/release: ${report.afterglowAt1_5s} → ${report.afterglowAt3s}`);
    g.setAfterglowTiming(Infinity).say(line, { afterglow: { happy: 0.3 } });
    if (!(after(5) > 0.25)) failures.push('an infinite hold did not hold');
    g.clearAfterglow(0);
    if (!(after(1 / 60) < 0.01)) failures.push('clearAfterglow(0) left the afterglow');
    expectError('NaN hold', () => g.setAfterglowTiming(NaN, 0.5), 'setAfterglowTiming');
    g.free();
  }
  // Audio-clock sync: 20 lines queued back to back on a fake AudioContext (0.8 s each,
  // voiced 0.1–0.6 s, heard 35 ms after their context time), rendered at ~60 fps with
  // jittered frames. Each voiced onset shows at the first frame whose heard audio time
  // has reached it: never early, never a frame late.
  {
    const line = { fps: 100, frames: new Float32Array(6 * 80).map((_, i) => (i % 6 === 0 && i >= 60 && i < 360 ? 0.9 : 0)), voicedStart: 0.1, voicedEnd: 0.6 };
    const context = { currentTime: 0.5, outputLatency: 0.035 };
    const f = new Face(rig, { seed: 5 });
    const aa = f.channels.indexOf('aa');
    const t0 = 1.0;
    for (let k = 0; k < 20; k++) f.say(line, { context, startAt: t0 + 0.8 * k });
    if (f.queued !== 20) failures.push(`queued ${f.queued} lines, not 20`);
    let rng = 7;
    const jitter = () => { rng = (rng * 1103515245 + 12345) % 2147483648; return (rng / 2147483648 - 0.5) * 0.004; };
    const onsets = [];
    let open = false;
    while (context.currentTime < t0 + 0.8 * 20 + 0.5) {
      const dt = 1 / 60 + jitter();
      context.currentTime += dt;
      f.update(dt);
      const now = f.weights()[aa] > 1e-3;
      if (now && !open) onsets.push(context.currentTime - context.outputLatency);
      open = now;
    }
    const errs = onsets.map((heard, k) => heard - (t0 + 0.8 * k + line.voicedStart));
    report.audioClockOnsetErrMs = { min: Math.min(...errs) * 1000, max: Math.max(...errs) * 1000 };
    if (onsets.length !== 20) failures.push(`audio clock: ${onsets.length} voiced onsets, not 20`);
    else if (!errs.every((e) => e >= -1e-4 && e < 1 / 60 + 0.0021)) failures.push(`audio clock: onsets off by ${errs.map((e) => (e * 1000).toFixed(1)).join(' ')} ms`);
    if (f.queued !== 0) failures.push(`${f.queued} lines left in the queue`);
    // A gap on the audio clock (a tab in the background: its audio plays on, the face
    // takes one frame): the line moves to where its audio is heard, and ends when that
    // has ended.
    {
      context.currentTime += 1;
      f.say(line, { context, startAt: context.currentTime });
      const frames = (s) => { for (let i = 0; i < s * 60; i++) { context.currentTime += 1 / 60; f.update(1 / 60); } };
      frames(0.05);
      const before = f.weights()[aa];
      context.currentTime += 0.3;
      f.update(0.3);
      report.audioClockGap = { before, after: f.weights()[aa] };
      if (!(before < 0.05 && f.weights()[aa] > 0.3)) failures.push(`audio clock gap: the mouth did not follow the audio into its voice (${before} → ${f.weights()[aa]})`);
      context.currentTime += 5;
      f.update(5);
      let open = 0;
      for (let i = 0; i < 40; i++) { context.currentTime += 1 / 60; f.update(1 / 60); if (i >= 12) open = Math.max(open, f.weights()[aa]); }
      report.audioClockAfterEnd = open;
      if (!(open < 0.02)) failures.push(`audio clock gap: the line spoke on after its audio had ended (aa ${open})`);
    }
    f.say(line, { context, startAt: context.currentTime + 5 }).cut();
    if (f.queued !== 0) failures.push('cut() left the queue');
    expectError('say with a NaN startAt', () => f.say(line, { context, startAt: NaN }), 'startAt NaN');
    // A bad line is refused when given, with or without the audio clock, and the face
    // goes on (never a throw from a later update).
    expectError('say a line at 0 fps', () => f.say({ frames: new Float32Array(6), fps: 0 }, { context, startAt: context.currentTime }), 'fps');
    expectError('say nothing', () => f.say({}, { context }), 'analysis must be what analyseVoice returns');
    expectError('say null', () => f.say(null), 'analysis must be what analyseVoice returns');
    expectError('say an unknown afterglow', () => f.say(line, { context, afterglow: { nope: 0.3 } }), 'nope');
    if (f.queued !== 0) failures.push('a refused line was queued');
    f.update(1 / 60);
    expectError('setExpression with a number for a name', () => f.setExpression(5, 1), 'name must be a string');
    expectError('setHead null', () => f.setHead(null), 'setHead: q must be 4 numbers');
    expectError('new Face()', () => new Face(), 'rig must be');
    // Bad values are refused by the call they were given to, by name (not accepted and
    // turned into something else, not thrown later from update).
    expectError('say a NaN voicedStart', () => f.say({ ...line, voicedStart: NaN }), 'say: analysis.voicedStart is NaN');
    expectError('say a negative voicedEnd', () => f.say({ ...line, voicedEnd: -1 }), 'say: analysis.voicedEnd is -1');
    expectError('say a null afterglow', () => f.say(line, { afterglow: null }), 'say: afterglow must be an object');
    expectError('listen to a LiveVoice', () => f.listen(new LiveVoice(48000)), 'listen: expected a VoiceInput (createVoiceInput, listenToMicrophone) or null (a LiveVoice is pushed by hand');
    expectError('listen to {}', () => f.listen({}), 'listen: expected a VoiceInput');
    expectError('listen to a half VoiceInput', () => f.listen({ vowels: new Float32Array(6), fresh: () => true }), 'listen: expected a VoiceInput');
    f.listen(null).update(1 / 60);
    f.listen(false).update(1 / 60); // `listen(on && mic)`: falsy stops
    for (const seed of [NaN, -1, 1.5, '7', 2 ** 32]) {
      expectError(`seed ${seed}`, () => new Face(rig, { seed }), 'new Face: seed');
    }
    new Face(rig, { seed: 2 ** 32 - 1 }).free();
    new Face(rig, null).free(); // settings left out as null: the defaults
    expectError('settings that are a number', () => new Face(rig, 5), 'new Face: the settings must be an object');
    expectError('analyseVoice with null settings and bad samples', () => analyseVoice([0], 16000, null), 'analyseVoice: samples must be a Float32Array');
    f.enableTracking(null);
    expectError('a MediaPipe NaN score', () => f.setTrackedMediaPipe({ faceBlendshapes: [{ categories: [{ categoryName: 'jawOpen', score: NaN }] }] }), 'setTrackedMediaPipe: the score of `jawOpen` is NaN');
    {
      // An emotion that changes: half way at half the fade, there at its end.
      const g = new Face(rig, { seed: 2 });
      const happy = g.channels.indexOf('happy');
      g.fadeExpression('happy', 1, 0.5);
      const seen = [];
      for (let i = 0; i < 30; i++) { g.update(1 / 60); seen.push(g.inputWeights()[happy]); }
      if (!(Math.abs(seen[14] - 0.5) < 0.05 && seen[29] === 1 && seen[0] < 0.02)) failures.push(`fadeExpression: ${seen[0]} ${seen[14]} ${seen[29]}`);
      if (!g.acted.has('happy')) failures.push('a faded expression is not among the acted');
      expectError('fade over NaN s', () => g.fadeExpression('happy', 1, NaN), 'fadeExpression: fading `happy` over NaN s');
      g.free();
    }
    f.free();
    expectError('update after free', () => f.update(1 / 60), 'Face.update: this Face was freed');
    expectError('weights after free', () => f.weights(), 'Face.weights: this Face was freed');
    expectError('say after free', () => f.say(line), 'Face.say: this Face was freed');
    expectError('say on the audio clock after free', () => f.say(line, { context }), 'Face.say: this Face was freed');
    expectError('setTracked after free', () => f.setTracked({ jawOpen: 1 }), 'Face.setTracked: this Face was freed');
    expectError('queued after free', () => f.queued, 'Face.queued: this Face was freed');
    f.free(); // twice: nothing
  }
  expectError('live rate 0', () => new LiveVoice(0), 'LiveVoice: sample rate 0');
  {
    const v = new LiveVoice(48000);
    expectError('live NaN', () => v.push(new Float32Array(128).fill(NaN)), 'sample 0 is NaN');
    expectError('live not a Float32Array', () => v.push([0, 1]), 'Float32Array');
    if (!Array.from(v.push(new Float32Array(4800))).every(Number.isFinite)) failures.push('LiveVoice broke after a NaN push');
    v.free();
    expectError('push after free', () => v.push(new Float32Array(128)), 'LiveVoice.push: this LiveVoice was freed');
    v.free();
  }
  expectError('eye mode', () => face.setEyeMode('sleepy'), 'sleepy');
  // Not a VRM: the usual mistakes are named (the GLTF itself, a loader without the plugin).
  expectError('rigFromVrm(null)', () => rigFromVrm(null), 'rigFromVrm: expected a three-vrm VRM (gltf.userData.vrm), got null');
  for (const [what, vrm, text] of [
    ['attach(undefined)', undefined, 'got undefined (was the GLTF loaded with VRMLoaderPlugin?)'],
    ['attach(gltf)', { scene: {}, userData: { vrm: {} } }, 'got a GLTF (pass gltf.userData.vrm)'],
    ['attach({})', {}, 'attach: expected a three-vrm VRM'],
  ]) {
    try { await attach(vrm); failures.push(`${what}: no error`); } catch (e) {
      if (!String(e && e.message).includes(text)) failures.push(`${what}: ${e} (wanted "${text}")`);
    }
  }
  {
    // Frames of one's own without a span play whole; a null span (a silent analysis) is
    // no speech and leaves the mouth shut.
    const own = new Float32Array(6 * 50);
    for (let i = 0; i < 50; i++) own[6 * i] = 0.8;
    const widest = (line) => {
      const g = new Face(rig, { seed: 3 }).say(line);
      const aa = g.channels.indexOf('aa');
      let most = 0;
      for (let i = 0; i < 20; i++) { g.update(1 / 60); most = Math.max(most, g.weights()[aa]); }
      g.free();
      return most;
    };
    const whole = widest({ frames: own, fps: 100 });
    const none = widest({ frames: own, fps: 100, voicedStart: null, voicedEnd: null });
    if (!(whole > 0.3)) failures.push(`own frames without a span opened the mouth to ${whole}`);
    if (!(none < 0.05)) failures.push(`a line with no speech opened the mouth to ${none}`);
  }
  {
    // attach on the least a three-vrm VRM has (expressions, no bones, three-vrm's lookAt
    // kept), then free: the face's memory goes and `update` says so.
    const values = new Map();
    const vrm = {
      expressionManager: {
        expressions: ['aa', 'blink', 'happy'].map((expressionName) => ({ expressionName })),
        getValue: (n) => values.get(n) ?? 0,
        setValue: (n, v) => values.set(n, v),
      },
      humanoid: { getNormalizedBoneNode: () => null },
    };
    const vf = await attach(vrm, { head: 'off', lookAt: 'keep' });
    vf.update(1 / 60);
    if (!values.has('blink')) failures.push('VrmFace.update wrote no blink');
    // A misspelt option of any call is named, not ignored; tracking comes through attach.
    // (The runtime's own refusals, like the settings' unknown field, are Errors; the
    // options a call takes are checked in JavaScript, as TypeErrors.)
    for (const [what, call, text, kind] of [
      ['attach', () => attach(vrm, { lookat: 'keep' }), 'attach: unknown setting `lookat` (there are `seed`, `wasm`, `head`, `lookAt`, `expressions`, `tracking`)', TypeError],
      ['attach tracking', () => attach(vrm, { tracking: { mirrorr: true } }), 'attach: the tracking settings: unknown field `mirrorr`', Error],
      ['analyseVoice', () => analyseVoice(new Float32Array(1600), 16000, { profle: '{}' }), 'analyseVoice: unknown setting `profle` (there is `profile`)', TypeError],
      ['say', () => new Face(rig).say({ frames: new Float32Array(6), fps: 100 }, { afterglo: {} }), 'say: unknown setting `afterglo`', TypeError],
      ['new LiveVoice', () => new LiveVoice(16000, { stedy: true }), 'new LiveVoice: unknown setting `stedy`', TypeError],
    ]) {
      try { await call(); failures.push(`${what}: no error`); } catch (e) {
        if (!(e instanceof kind) || !String(e.message).includes(text)) failures.push(`${what}: ${e} (wanted a ${kind.name} "${text}")`);
      }
    }
    vf.free();
    expectError('VrmFace update after free', () => vf.update(1 / 60), 'VrmFace.update: this VrmFace was freed');
    expectError('its face after free', () => vf.face.weights(), 'Face.weights: this Face was freed');
    vf.free(); // twice: nothing
    const tracked = await attach(vrm, { head: 'off', lookAt: 'keep', tracking: { mirror: true } });
    tracked.face.calibrateTracking(0.5); // throws "tracking is off" if the option was lost
    tracked.free();
  }
  face.update(1 / 60);
  if (!Array.from(face.weights()).every(Number.isFinite)) failures.push('the face broke after bad calls');
  face.free();
} catch (e) {
  failures.push(String(e && e.stack ? e.stack : e));
}
console.log(JSON.stringify(report));
process.exit(failures.length ? 1 : 0);
