// omote for the web: lip sync, blinks, gaze and voice lines for VRM avatars, in wasm.
// The API is documented in web/README.md and web/index.d.ts.
import initWasm, { analyseVoice as wasmAnalyse, builtinVoiceProfile as wasmBuiltinProfile, calibrateVoiceFromCard as wasmCalibrate, Face as WasmFace, LiveVoice as WasmLiveVoice, Speaker as WasmSpeaker } from './omote_web.js';

let loading = null;
let module = null;

/** Loads the wasm module once. Browser: fetched next to this file unless `source` (a
 *  URL, Response, bytes or a compiled WebAssembly.Module) says otherwise; Node ≥ 20:
 *  pass the bytes (`await readFile(new URL('./omote_web_bg.wasm', import.meta.resolve('omote')))`).
 *  The module is compiled here (not by the glue) so live voice worklets can share it. */
export function init(source) {
  if (!loading) {
    loading = (async () => {
      module = await compile(source === undefined ? new URL('./omote_web_bg.wasm', import.meta.url) : source);
      return initWasm({ module_or_path: module });
    })();
    loading.catch(() => { loading = null; });
  }
  return loading;
}

async function compile(source) {
  source = await source;
  if (source instanceof WebAssembly.Module) return source;
  if (typeof source === 'string' || source instanceof URL) {
    let res;
    try {
      res = await fetch(source);
    } catch (e) {
      // Node's fetch reads no file: URL, and a relative path needs a page to be relative to.
      const hint = typeof window === 'undefined' ? ' (in Node, pass the bytes: init(await readFile(…omote_web_bg.wasm)))' : '';
      throw new Error(`init: cannot fetch ${source}: ${e && e.message ? e.message : e}${hint}`);
    }
    if (!res.ok) throw new Error(`init: ${source}: HTTP ${res.status}`);
    source = res;
  }
  if (typeof Response !== 'undefined' && source instanceof Response) source = await source.arrayBuffer();
  try {
    return await WebAssembly.compile(source);
  } catch (e) {
    throw new Error(`init: not omote's wasm module (${e && e.message ? e.message : e})`);
  }
}

/** The compiled module (after `init`), for the voice worklet. */
export function compiledModule() {
  if (!module) throw new Error('omote: call `await init()` first');
  return module;
}

function checkInit(what) {
  if (!loading) throw new Error(`${what}: call \`await init()\` first`);
}

/** A whole clip's lip sync: `{fps, frames (6 per frame: A I U E O N), silent,
 *  voicedStart, voicedEnd, duration}` — the same numbers as `omote lipsync`. */
export function analyseVoice(samples, sampleRate, options) {
  checkInit('analyseVoice');
  const { profile } = settings('analyseVoice', options, ['profile']);
  checkSamples('analyseVoice', samples, sampleRate);
  return analysisObject(wasmAnalyse(samples, sampleRate, voiceProfile('analyseVoice', profile)));
}

/** The calibration card a speaker reads once, one syllable at a time with a short pause
 *  after each: 30 syllables, six per vowel. */
export const VOICE_CARD = 'a i u e o ka ki ku ke ko sa shi su se so ta chi tsu te to na ni nu ne no ma mi mu me mo';

/** A lip sync profile calibrated to one speaker, as JSON text: `samples` (a Float32Array
 *  at `sampleRate` Hz) are one take of them reading `card` (default `VOICE_CARD`), one
 *  syllable at a time with a short pause after each; `base`: the profile to start from
 *  (default: the built-in one). Keep the text (localStorage, the user's settings) and
 *  give it as `profile` to `analyseVoice`, `Speaker.analyseVoice`, `LiveVoice`,
 *  `createVoiceInput` or `listenToMicrophone`. A take whose syllables are not heard as
 *  the card has them throws, with both counts. */
export function calibrateVoice(samples, sampleRate, options) {
  checkInit('calibrateVoice');
  const { card, base } = settings('calibrateVoice', options, ['card', 'base']);
  checkSamples('calibrateVoice', samples, sampleRate);
  if (card != null && typeof card !== 'string') throw new TypeError('calibrateVoice: card must be the card\'s text');
  return wasmCalibrate(samples, sampleRate, card ?? undefined, voiceProfile('calibrateVoice', base));
}

/** The built-in lip sync profile's JSON text. */
export function builtinVoiceProfile() {
  checkInit('builtinVoiceProfile');
  return wasmBuiltinProfile();
}

/** Internal (shared with voice-input.js): a call's settings object — none, undefined or
 *  null is `{}`; anything else but an object is refused, naming the call, and so is a
 *  name that is not one of `known` (a misspelt option would otherwise do nothing). */
export function settings(what, options, known) {
  if (options == null) return {};
  if (typeof options !== 'object') throw new TypeError(`${what}: the settings must be an object ({ … }), got ${typeof options}`);
  if (known) {
    const unknown = Object.keys(options).filter((k) => !known.includes(k));
    if (unknown.length) {
      const names = known.map((k) => `\`${k}\``).join(', ');
      throw new TypeError(`${what}: unknown setting ${unknown.map((k) => `\`${k}\``).join(', ')} (there ${known.length > 1 ? 'are' : 'is'} ${names})`);
    }
  }
  return options;
}

/** Internal: settings (an object, or JSON text as the other bindings take) as the JSON
 *  text wasm reads. What JSON cannot carry — NaN, Infinity, a BigInt, a Map, a function,
 *  a cycle — is refused by its path here, where it is still named; `JSON.stringify` would
 *  turn NaN into null and a Map into `{}`. */
function settingsJson(what, options) {
  if (typeof options === 'string') return options;
  const open = new Set();
  const plain = (v, path) => {
    const at = path || 'the settings';
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new TypeError(`${what}: ${at} is ${v}: not a JSON number`);
      return v;
    }
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
    const array = Array.isArray(v);
    const proto = v && typeof v === 'object' && Object.getPrototypeOf(v);
    if (!array && proto !== Object.prototype && proto !== null) {
      const kind = v && v.constructor && v.constructor.name ? `a ${v.constructor.name}` : typeof v;
      throw new TypeError(`${what}: ${at} is ${kind}: settings are plain objects, arrays, numbers, text and true/false`);
    }
    if (open.has(v)) throw new TypeError(`${what}: ${at} contains itself`);
    open.add(v);
    const out = array ? v.map((x, i) => plain(x, `${path}[${i}]`)) : {};
    if (!array) for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = plain(x, path ? `${path}.${k}` : k);
    open.delete(v);
    return out;
  };
  return JSON.stringify(plain(settings(what, options), ''));
}

/** Internal (shared with voice-input.js): a `profile` option as the text wasm takes. */
export function voiceProfile(what, profile) {
  if (profile == null) return undefined;
  if (typeof profile !== 'string') throw new TypeError(`${what}: profile must be a lip sync profile's JSON text (from calibrateVoice)`);
  return profile;
}

/** What a freed wasm object becomes: every call names itself and says why it fails;
 *  `free` again does nothing. */
function freed(kind) {
  return new Proxy({}, {
    get(_, prop) {
      if (prop === 'free') return () => {};
      throw new Error(`${kind}.${String(prop)}: this ${kind} was freed`);
    },
  });
}

/** `analysis` is what `analyseVoice` returns (or the same shape): checked before a line is
 *  queued, so a bad one is refused by `say`, not by a later `update`. */
/** A line's voiced span as `sayAt` takes it: null (no speech, as analyseVoice gives it
 *  for silence) is NaN; not given at all (frames from another tool) is +∞, the whole
 *  clip. */
function span(analysis) {
  if (analysis.voicedStart === undefined && analysis.voicedEnd === undefined) return [Infinity, Infinity];
  return [analysis.voicedStart ?? NaN, analysis.voicedEnd ?? NaN];
}

function checkAnalysis(what, analysis) {
  if (!analysis || typeof analysis !== 'object' || !(analysis.frames instanceof Float32Array)) {
    throw new TypeError(`${what}: analysis must be what analyseVoice returns ({fps, frames: Float32Array, voicedStart, voicedEnd})`);
  }
  // null is analyseVoice's "no speech"; a number must be a time.
  for (const key of ['voicedStart', 'voicedEnd']) {
    const v = analysis[key];
    if (v != null && !(typeof v === 'number' && Number.isFinite(v) && v >= 0)) {
      throw new TypeError(`${what}: analysis.${key} is ${v}: a time in seconds (0 or more), or null for a line with no speech`);
    }
  }
}

function checkSamples(what, samples, sampleRate) {
  if (!(samples instanceof Float32Array)) {
    throw new TypeError(`${what}: samples must be a Float32Array of mono samples in -1..1`);
  }
  if (typeof sampleRate !== 'number') throw new TypeError(`${what}: sampleRate must be a number`);
}

function analysisObject(a) {
  try {
    return {
      fps: a.fps,
      frames: a.frames,
      silent: a.silent,
      voicedStart: a.voicedStart ?? null,
      voicedEnd: a.voicedEnd ?? null,
      duration: a.durationS,
    };
  } finally {
    a.free();
  }
}

/** One character's voice lines. Add every line there is (`addLine`), then analyse each
 *  (`analyseVoice`, the same shape as the function): a short line is read against the
 *  character's voice rather than against its own few words, as `omote lipsync` reads
 *  one folder's files. A line that was added is left out of its own comparison. */
export class Speaker {
  constructor() {
    checkInit('new Speaker');
    this._speaker = new WasmSpeaker();
  }

  /** Adds a line (a Float32Array of mono samples at `sampleRate` Hz). */
  addLine(samples, sampleRate) {
    checkSamples('Speaker.addLine', samples, sampleRate);
    this._speaker.addLine(samples, sampleRate);
  }

  /** Lines added so far. */
  get lines() {
    return this._speaker.lines;
  }

  /** The voice as 13 numbers (its mean cepstrum over the lines added, and how many
   *  voiced frames that is): pass it, or this Speaker, as `speaker` to `LiveVoice` or
   *  `createVoiceInput`, so a live stream reads the first words against this voice. */
  voiceSeed() {
    return this._speaker.voiceSeed();
  }

  /** A line's lip sync against the other lines (see `analyseVoice`); `profile`: a lip
   *  sync profile's JSON text (from `calibrateVoice`). */
  analyseVoice(samples, sampleRate, options) {
    const { profile } = settings('Speaker.analyseVoice', options, ['profile']);
    checkSamples('Speaker.analyseVoice', samples, sampleRate);
    return analysisObject(this._speaker.analyseVoice(samples, sampleRate, voiceProfile('Speaker.analyseVoice', profile)));
  }

  /** Frees the wasm memory (optional; a FinalizationRegistry does it too). */
  free() {
    this._speaker.free();
    this._speaker = freed('Speaker');
  }
}

const EYE_MODES = new Set(['idle', 'talking', 'listening', 'focused']);

/** How far (s) a line on the audio clock may drift from its audio before it is moved to
 *  it: well over a frame's jitter, well under a gap a viewer would notice. */
const CLOCK_SLACK_S = 0.1;

/** One character's face. `rig`: the avatar's expressions (an object or JSON text in the
 *  rig-file format; `rigFromVrm` in `omote/three-vrm` builds it from a loaded VRM). */
export class Face {
  constructor(rig, options) {
    checkInit('new Face');
    const { seed = 1, tracking = false } = settings('new Face', options, ['seed', 'tracking']);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      throw new TypeError(`new Face: seed ${typeof seed === 'string' ? `"${seed}"` : seed} is not a whole number from 0 to 4294967295`);
    }
    if (!rig || (typeof rig !== 'string' && typeof rig !== 'object')) {
      throw new TypeError('new Face: rig must be a rig object or its JSON text (rigFromVrm(vrm) makes it)');
    }
    const json = typeof rig === 'string' ? rig : JSON.stringify(rig);
    this._face = new WasmFace(json, seed);
    /** Channel names in the order of `weights`. */
    this.channels = this._face.channelNames();
    if (tracking) {
      try { this.enableTracking(tracking === true ? undefined : tracking); } catch (e) {
        this._face.free();
        const message = String(e && e.message ? e.message : e).replace(/^enableTracking\b/, 'new Face');
        throw e instanceof TypeError ? new TypeError(message) : new Error(message);
      }
    }
    /** Names given to `setExpression` or a line's afterglow: the expressions this face
     *  drives beyond its own (mouth, blinks, gaze). `VrmFace` writes those and leaves
     *  the rest to the app. */
    this.acted = new Set();
  }

  /** Sets an acted expression weight (0–1): what the character is doing. */
  setExpression(name, weight) {
    if (typeof name !== 'string') throw new TypeError(`setExpression: name must be a string (an expression's name), got ${typeof name}`);
    this._face.setExpression(name, weight);
    this.acted.add(name);
    return this;
  }

  /** Moves an acted expression from its weight now to `weight` over `seconds` (0–60;
   *  0: at once), eased in and out as a scene key's fade: an emotion that changes rather
   *  than jumps. A later fade starts from where this one got to; `setExpression` ends it. */
  fadeExpression(name, weight, seconds) {
    if (typeof name !== 'string') throw new TypeError(`fadeExpression: name must be a string (an expression's name), got ${typeof name}`);
    this._face.fadeExpression(name, weight, seconds);
    this.acted.add(name);
    return this;
  }

  /** The acted gaze in degrees (yaw > 0: toward the avatar's left; pitch > 0: down). */
  setGaze(yawDeg, pitchDeg) { this._face.setGaze(yawDeg, pitchDeg); return this; }

  /** The acted head rotation, a quaternion [x, y, z, w] in the VRM frame. */
  setHead(q) {
    if (!q || q.length !== 4) throw new TypeError('setHead: q must be 4 numbers [x, y, z, w]');
    this._face.setHead(q[0], q[1], q[2], q[3]);
    return this;
  }

  /** 'idle' | 'talking' | 'listening' | 'focused'. */
  setEyeMode(mode) {
    if (!EYE_MODES.has(mode)) throw new Error(`setEyeMode: \`${mode}\` is not idle, talking, listening or focused`);
    this._face.setEyeMode(mode);
    return this;
  }

  /** Says a voice line: `analysis` from `analyseVoice` (or the same shape);
   *  `afterglow`: `{expression: weight}` shown after the line (see
   *  `setAfterglowTiming`). Without `context` the line starts at the next `update`.
   *  With `context` (an AudioContext) the line follows that audio clock: its audio
   *  starts at context time `startAt` (default: now — pass what you gave
   *  `source.start(startAt)`) and is heard `context.outputLatency` later; the line
   *  starts at the update where that moment has come, exactly that far in, so lines
   *  queued back to back (a streaming TTS) land on their audio, not on summed frame
   *  times, and a line playing stays on its audio after a gap (a tab in the
   *  background: the line moves to where its audio is heard, or ends if that has).
   *  Queued lines wait their turn; `cut()` drops the queue too. */
  say(analysis, options) {
    this._live('say');
    const { afterglow = {}, context, startAt } = settings('say', options, ['afterglow', 'context', 'startAt']);
    checkAnalysis('say', analysis);
    if (!afterglow || typeof afterglow !== 'object') throw new TypeError('say: afterglow must be an object { expression: weight }');
    if (context) {
      const at = startAt ?? context.currentTime;
      if (typeof context.currentTime !== 'number') throw new TypeError('say: context must be an AudioContext (it has no currentTime)');
      if (!Number.isFinite(at)) throw new TypeError(`say: startAt ${at} is not a finite context time`);
      // The line is checked now (the same rule that saying it applies), not at the
      // update it comes due in.
      const names = Object.keys(afterglow);
      this._face.checkLine(
        analysis.frames, analysis.fps,
        ...span(analysis),
        names, Float32Array.from(names.map((n) => afterglow[n])),
      );
      this._queue ??= [];
      this._queue.push({ analysis, afterglow, at, context });
      this._queue.sort((a, b) => a.at - b.at);
      return this;
    }
    this._sayAt(analysis, afterglow, 0);
    this._clocked = null;
    return this;
  }

  _sayAt(analysis, afterglow, elapsed) {
    const names = Object.keys(afterglow);
    this._face.sayAt(
      analysis.frames, analysis.fps,
      ...span(analysis),
      names, Float32Array.from(names.map((n) => afterglow[n])),
      elapsed,
    );
    for (const n of names) this.acted.add(n);
  }

  /** Lines given to `say` with a `context` that have not started yet. */
  get queued() { this._live('queued'); return this._queue ? this._queue.length : 0; }

  /** Starts the queued line whose audio is heard by the end of this update's step, that
   *  far in (the latest one, if a gap let several come due). */
  _startDue(dt) {
    const step = this._face.stepFor(dt);
    let due = null;
    while (this._queue.length) {
      const q = this._queue[0];
      const heard = q.context.currentTime - (q.context.outputLatency || 0);
      if (heard - q.at < 0) break;
      due = { q, pos: heard - q.at };
      this._queue.shift();
    }
    if (!due) return false;
    // After this update's step the line is `pos` in: where its audio is being heard.
    this._sayAt(due.q.analysis, due.q.afterglow, due.pos - step);
    const a = due.q.analysis;
    this._clocked = { q: due.q, pos: due.pos, length: a.frames.length / 6 / a.fps };
    return true;
  }

  /** Keeps a line started on the audio clock where its audio is heard. Frame by frame
   *  the render clock and the audio agree; after a gap they do not (a tab in the
   *  background: its audio played on while the face, by the dt contract, took one
   *  frame), so the line moves to where the audio is — or ends, if the audio has. */
  _followClock(dt) {
    const c = this._clocked;
    const step = this._face.stepFor(dt);
    const heard = c.q.context.currentTime - (c.q.context.outputLatency || 0) - c.q.at;
    c.pos += step;
    if (Math.abs(heard - c.pos) <= CLOCK_SLACK_S) {
      if (c.pos >= c.length) this._clocked = null;
      return;
    }
    if (heard >= c.length) {
      this._clocked = null;
      this._face.cut();
      return;
    }
    this._sayAt(c.q.analysis, c.q.afterglow, heard - step);
    c.pos = heard;
  }

  /** Stops the line that plays; the mouth hands over from now (its afterglow ramps in
   *  from the cut, then holds and releases as after any line). */
  cut() { this._face.cut(); if (this._queue) this._queue.length = 0; this._clocked = null; return this; }

  /** The afterglow's hold at full once a line has ended, then its release (seconds).
   *  `holdS` Infinity, the default, keeps it until the next line. It is added on top of
   *  the acting (`setExpression` does not end it); a line with no voice releases it; the
   *  next voiced line fades it out before its voice. */
  setAfterglowTiming(holdS, releaseS = 0.5) { this._face.setAfterglowTiming(holdS, releaseS); return this; }

  /** Releases the afterglow showing now over `releaseS` seconds (0: at once); a line
   *  playing keeps its own. */
  clearAfterglow(releaseS = 0.5) { this._face.clearAfterglow(releaseS); return this; }

  /** Drives the mouth from a `VoiceInput` (createVoiceInput / listenToMicrophone): every
   *  update takes its newest frame. `null` stops. A voice line (`say`) still wins. */
  listen(voiceInput) {
    this._live('listen');
    // Anything falsy stops (`listen(on && mic)`); anything else must be a VoiceInput.
    if (voiceInput && !(typeof voiceInput === 'object' && typeof voiceInput.fresh === 'function'
      && voiceInput.vowels && voiceInput.latest && voiceInput.latest.length >= 8)) {
      const hint = voiceInput instanceof LiveVoice ? ' (a LiveVoice is pushed by hand: give its frames to setLiveVowels)' : '';
      throw new TypeError(`listen: expected a VoiceInput (createVoiceInput, listenToMicrophone) or null${hint}`);
    }
    this._voice = voiceInput || null;
    return this;
  }

  /** Blinks `delayS` seconds from now (0: as soon as the eyes are free). */
  requestBlink(delayS = 0) { this._face.requestBlink(delayS); return this; }

  /** Announces an eye-area change (a surprised key, eyes shut) `inS` seconds ahead on
   *  your own timeline: no automatic blink starts shortly before it. */
  announceEyeChange(inS) { this._face.announceEyeChange(inS); return this; }

  /** Turns face tracking on (again: afresh, calibration and fade-in start over): faces
   *  given to `setTracked` / `setTrackedMediaPipe` drive the face over the acting (a lost
   *  face fades back to it).
   *  The settings are any fields of a tracking settings file (docs/tracking-format.md):
   *  `{ mirror: true }` for a selfie camera (the user's left drives the avatar's right),
   *  `{ neckShare, limits, eyes, mouth, emotions, smoothing, headFilter, … }`; the runtime
   *  reads them (as JSON), refusing an unknown field or a number out of range by name. */
  enableTracking(options) {
    this._face.enableTracking(settingsJson('enableTracking', options));
    return this;
  }

  /** The tracked face for the next updates: `scores` as `{ name: score }` (ARKit names,
   *  any spelling) and, if known, the head as a row-major 4×4 transform (16 numbers). */
  setTracked(scores, headRowMajor) {
    this._live('setTracked');
    if (!scores || typeof scores !== 'object') throw new TypeError('setTracked: scores must be an object { name: score }');
    if (headRowMajor != null && headRowMajor.length !== 16) throw new TypeError('setTracked: the head must be 16 numbers (a 4×4 matrix, row by row)');
    const names = Object.keys(scores);
    this._face.setTrackedNamed(names, Float32Array.from(names.map((n) => scores[n])),
      headRowMajor == null ? undefined : Float32Array.from(headRowMajor));
    return this;
  }

  /** A MediaPipe FaceLandmarker result (`@mediapipe/tasks-vision`, with
   *  `outputFaceBlendshapes` and `outputFacialTransformationMatrixes`) as the tracked
   *  face: its face `index` (default the first), or lost when it has none. MediaPipe's
   *  matrix `data` is column-major (what three.js's `Matrix4.fromArray` takes). */
  setTrackedMediaPipe(result, index = 0) {
    this._live('setTrackedMediaPipe');
    if (!result || typeof result !== 'object') throw new TypeError('setTrackedMediaPipe: result must be a FaceLandmarker result');
    const shapes = result.faceBlendshapes?.[index]?.categories;
    const matrix = result.facialTransformationMatrixes?.[index];
    if (!shapes && !matrix) { this._face.setTrackingLost(); return this; }
    const names = (shapes || []).map((c) => c.categoryName);
    const scores = Float32Array.from((shapes || []).map((c) => c.score));
    let head;
    if (matrix) {
      const d = matrix.data;
      if (!d || d.length !== 16) throw new TypeError('setTrackedMediaPipe: the transformation matrix must be 4×4');
      head = new Float32Array(16);
      for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) head[4 * r + c] = d[4 * c + r];
    }
    try {
      this._face.setTrackedNamed(names, scores, head);
    } catch (e) {
      throw new Error(String(e && e.message ? e.message : e).replace(/^setTracked\b/, 'setTrackedMediaPipe'));
    }
    return this;
  }

  /** The tracker found no face: the face fades back to the acting. */
  setTrackingLost() { this._face.setTrackingLost(); return this; }

  /** Takes the user's neutral head pose from the next `seconds` of tracked faces (0:
   *  the next face), while they look straight at the screen. */
  calibrateTracking(seconds = 1) { this._face.calibrateTracking(seconds); return this; }

  /** A live voice frame (6 numbers A I U E O N, whether voiced) for the next update. */
  setLiveVowels(frame, voiced) { this._face.setLiveVowels(Float32Array.from(frame), !!voiced); return this; }

  /** Advances by `dt` seconds. Any dt is taken, never thrown on (omote-embed's time
   *  contract): up to 0.25 s one exact step; longer (a tab back from the background,
   *  a clock's first delta) one normal frame — the last step taken, 1/60 s before any
   *  — so the face resumes where it was without a jump; 0, negative, NaN or Infinity
   *  passes no time. */
  update(dt) {
    this._live('update');
    const v = this._voice;
    if (v) this._face.setLiveVowels(v.vowels, v.fresh() && v.latest[7] === 1);
    const started = this._queue && this._queue.length && this._startDue(dt);
    if (!started && this._clocked) this._followClock(dt);
    this._face.update(dt);
    return this;
  }

  /** Weights after the VRM override rules (what the face shows), channel order. */
  weights() { return this._face.weights(); }

  /** Weights before the override rules (for players that apply them). */
  inputWeights() { return this._face.inputWeights(); }

  /** Head, left eye and right eye rotations: 12 numbers (x y z w each). */
  rotations() { return this._face.rotations(); }

  /** The gaze after smoothing: [yawDeg, pitchDeg]. */
  gaze() { return this._face.gaze(); }

  /** Blinks that started in the last update. */
  blinksThisFrame() { return this._face.blinksThisFrame(); }

  /** Frees the wasm memory (the face is unusable after: each call then says so; `free`
   *  again does nothing). */
  free() {
    this._face.free();
    this._face = freed('Face');
    this._freed = true;
  }

  /** Refuses a call after `free`, by its own name (the wasm names its own calls). */
  _live(what) {
    if (this._freed) throw new Error(`Face.${what}: this Face was freed`);
  }
}

/** Live lip sync without a worklet (Node, tests, own audio plumbing): push mono samples
 *  at `sampleRate`, get the frames they complete (8 numbers each: A I U E O N, volume,
 *  voiced). Browsers: `createVoiceInput` runs this inside an AudioWorklet. */
export class LiveVoice {
  /** `steady`: hold each frame back 10 ms so one-frame flickers of the mouth class are
   *  removed (as `omote lipsync live` does); off by default for the lowest latency.
   *  `speaker`: a `Speaker` (or its `voiceSeed()`) whose voice the stream starts from.
   *  `profile`: a lip sync profile's JSON text (from `calibrateVoice`). */
  constructor(sampleRate, options) {
    checkInit('new LiveVoice');
    const { steady = false, speaker, profile } = settings('new LiveVoice', options, ['steady', 'speaker', 'profile']);
    if (typeof sampleRate !== 'number') throw new TypeError('LiveVoice: sampleRate must be a number');
    this._voice = new WasmLiveVoice(sampleRate, !!steady, voiceProfile('LiveVoice', profile));
    const seed = voiceSeed(speaker);
    if (seed) {
      try {
        this._voice.startFromSpeaker(seed);
      } catch (e) {
        this._voice.free();
        throw e;
      }
    }
    /** Algorithmic latency in seconds (analysis window and resampling). */
    this.latencyS = this._voice.latencyS;
  }

  /** Pushes mono samples (a Float32Array); returns the completed frames. */
  push(samples) {
    if (!(samples instanceof Float32Array)) throw new TypeError('LiveVoice.push: samples must be a Float32Array');
    return this._voice.push(samples);
  }

  /** Frames out so far. */
  get framesOut() { return this._voice.framesOut; }

  /** Frees the wasm memory (each call then says so; `free` again does nothing). */
  free() {
    this._voice.free();
    this._voice = freed('LiveVoice');
  }
}

/** Internal (shared with voice-input.js, not in index.d.ts): a `speaker` option as a voice
 *  seed: a Speaker's, or the numbers given (null if none). */
export function voiceSeed(speaker) {
  if (speaker == null) return null;
  if (typeof speaker.voiceSeed === 'function') return speaker.voiceSeed();
  if (speaker instanceof Float32Array) return speaker;
  if (Array.isArray(speaker)) return Float32Array.from(speaker);
  throw new TypeError('speaker: a Speaker or its voiceSeed() (13 numbers) is needed');
}

export { VoiceInput, createVoiceInput, listenToMicrophone } from './voice-input.js';
