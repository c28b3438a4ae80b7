// Types of the omote npm package (web/src/index.js, web/src/three-vrm.js).

/** Loads the wasm module once (browser: fetched next to the module; Node: pass bytes). */
export function init(source?: string | URL | Response | BufferSource | WebAssembly.Module): Promise<unknown>;

/** A clip's lip sync, 100 frames per second. */
export interface VoiceAnalysis {
  fps: number;
  /** 6 numbers per frame: A I U E O N (closed mouth). */
  frames: Float32Array;
  /** Per frame: 1 when silent. */
  silent: Uint8Array;
  /** Where speech starts and ends, seconds; null for a clip with no speech. */
  voicedStart: number | null;
  voicedEnd: number | null;
  duration: number;
}

/** The same numbers as `omote lipsync` on the same audio. Throws on an empty buffer,
 *  NaN samples or a sample rate outside 4000–384000 Hz. */
export function analyseVoice(samples: Float32Array, sampleRate: number, options?: { profile?: string }): VoiceAnalysis;

/** The calibration card a speaker reads once, one syllable at a time with a short pause
 *  after each: 30 syllables, six per vowel. */
export const VOICE_CARD: string;

/** A lip sync profile calibrated to one speaker, as JSON text, from one take of them
 *  reading `card` (default `VOICE_CARD`); `base`: the profile to start from (default: the
 *  built-in one). Give it as `profile` to the readings and live inputs. Throws when the
 *  take's syllables are not heard as the card has them, with both counts. */
export function calibrateVoice(samples: Float32Array, sampleRate: number, options?: { card?: string; base?: string }): string;

/** The built-in lip sync profile's JSON text. */
export function builtinVoiceProfile(): string;

/** One character's voice lines: add every line, then analyse each against the others (a
 *  short line follows the voice, not its own few words; as `omote lipsync` reads one
 *  folder's files). An added line is left out of its own comparison. */
export class Speaker {
  constructor();
  addLine(samples: Float32Array, sampleRate: number): void;
  readonly lines: number;
  analyseVoice(samples: Float32Array, sampleRate: number, options?: { profile?: string }): VoiceAnalysis;
  /** The voice as 13 numbers (mean cepstrum, voiced frames), for `speaker` options. */
  voiceSeed(): Float32Array;
  free(): void;
}

/** A live stream's starting voice: a Speaker or its voiceSeed(). */
export type SpeakerSeed = Speaker | Float32Array | number[];

export type EyeMode = 'idle' | 'talking' | 'listening' | 'focused';

/** A rig description (the rig-file format of omote's README, as an object). */
export interface RigDesc {
  name?: string;
  presets?: boolean;
  arkit?: boolean;
  expressions?: Array<{ name: string; isBinary?: boolean; overrideBlink?: 'none' | 'block' | 'blend'; overrideLookAt?: 'none' | 'block' | 'blend'; overrideMouth?: 'none' | 'block' | 'blend' }>;
  lookAt?: object;
}

/** A response curve: a preset name (`"linear"`, `"smoothstep"`, …) or keys in increasing
 *  `t` (`in`/`out`: tangents; `interp`: the segment that starts at the key). */
export type ResponseCurve =
  | string
  | { keys: { t: number; v: number; in?: number; out?: number; interp?: 'hermite' | 'linear' | 'constant' }[] };
/** Tracking settings: any fields of a tracking settings file (docs/tracking-format.md,
 *  "Tracking settings"); what is left out keeps its default. */
export interface TrackingSettings {
  /** The user's left drives the avatar's right (a selfie camera). Default false. */
  mirror?: boolean;
  /** Head limits after calibration, degrees (70 / 50 / 45). */
  limits?: { yawDeg?: number; pitchDeg?: number; rollDeg?: number };
  /** Share of the head's turn a recording gives the neck (0.5). */
  neckShare?: number;
  eyes?: { openBelow?: number; closedAbove?: number; curve?: ResponseCurve; winkDifference?: number; maxOpenSpeed?: number };
  mouth?: { jawCurve?: ResponseCurve; vowels?: boolean; gain?: number };
  emotions?: { target: string; sources: string[]; combine?: 'average' | 'max'; from: number; to: number }[];
  exclusiveEmotions?: boolean;
  perfectSync?: boolean;
  perfectSyncReplaces?: boolean;
  gaze?: { curve?: ResponseCurve };
  /** One Euro filters (all three numbers when given). */
  headFilter?: { minCutoff: number; beta: number; derivativeCutoff: number };
  gazeFilter?: { minCutoff: number; beta: number; derivativeCutoff: number };
  /** Half-lives in seconds per channel group. */
  smoothing?: { eyes?: number; mouth?: number; emotions?: number; perfectSync?: number };
  /** Seconds without a face before the fallback starts, and the ease both ways. */
  loss?: { grace?: number; blendTime?: number };
}

export class Face {
  /** `tracking`: true for face tracking with the default settings, or its settings (as
   *  `enableTracking` takes them). Unknown options throw. */
  constructor(rig: RigDesc | string, options?: { seed?: number; tracking?: boolean | TrackingSettings | string });
  readonly channels: string[];
  /** Names given to setExpression or an afterglow (VrmFace writes these and omote's own
   *  mouth, blinks and look expressions; the rest are the app's). */
  readonly acted: Set<string>;
  setExpression(name: string, weight: number): this;
  /** Moves an expression from its weight now to `weight` over `seconds` (0–60), eased;
   *  setExpression ends the fade. */
  fadeExpression(name: string, weight: number, seconds: number): this;
  setGaze(yawDeg: number, pitchDeg: number): this;
  setHead(q: ArrayLike<number>): this;
  setEyeMode(mode: EyeMode): this;
  /** `analysis`: what `analyseVoice` gives, or frames of your own; without
   *  `voicedStart`/`voicedEnd` they play whole (null: a line with no speech).
   *  Without `context` the line starts at the next update. With `context` it follows
   *  the audio clock: its audio starts at context time `startAt` (default now) and is
   *  heard `outputLatency` later; lines queue and each starts exactly on its audio, and
   *  a line playing stays on its audio after a gap (a tab in the background). */
  say(analysis: Pick<VoiceAnalysis, 'frames' | 'fps'> & Partial<Pick<VoiceAnalysis, 'voicedStart' | 'voicedEnd'>>, options?: { afterglow?: Record<string, number>; context?: BaseAudioContext; startAt?: number }): this;
  /** Lines given to say with a context that have not started yet. */
  readonly queued: number;
  cut(): this;
  /** The afterglow's hold at full once a line has ended, then its release (s); hold
   *  Infinity (the default) keeps it until the next line; a negative or NaN time throws. */
  setAfterglowTiming(holdS: number, releaseS?: number): this;
  /** Releases the afterglow showing now over releaseS (0.5) seconds; 0: at once (a
   *  negative, NaN or infinite time throws). */
  clearAfterglow(releaseS?: number): this;
  /** Blinks `delayS` seconds from now. */
  requestBlink(delayS?: number): this;
  /** An eye-area change `inS` seconds ahead on your timeline: no blink shortly before. */
  announceEyeChange(inS: number): this;
  /** Face tracking on (again: afresh, calibration starts over); `{ mirror: true }` for a selfie
   *  camera. Unknown fields and numbers out of range throw, naming them. */
  enableTracking(settings?: TrackingSettings | string | null): this;
  /** The tracked face: `{ name: score }` (ARKit names) and a row-major 4×4 head transform. */
  setTracked(scores: Record<string, number>, headRowMajor?: ArrayLike<number> | null): this;
  /** A MediaPipe FaceLandmarker result's face `index` (or lost when it has none). */
  setTrackedMediaPipe(
    result: {
      faceBlendshapes?: { categories: { categoryName: string; score: number }[] }[];
      facialTransformationMatrixes?: { rows: number; columns: number; data: ArrayLike<number> }[];
    },
    index?: number,
  ): this;
  /** The tracker found no face. */
  setTrackingLost(): this;
  /** The user's neutral head pose from the next `seconds` of tracked faces. */
  calibrateTracking(seconds?: number): this;
  setLiveVowels(frame: ArrayLike<number>, voiced: boolean): this;
  /** Drives the mouth from a VoiceInput's newest frame on every update; null stops. */
  listen(voiceInput: VoiceInput | null): this;
  /** Advances by dt seconds and never throws on a dt: up to 0.25 s one exact step;
   *  longer (a tab back from the background, a clock's first delta) one normal frame
   *  (the last step taken; 1/60 s before any), so the face resumes without a jump;
   *  0, negative, NaN or Infinity: no time passes. */
  update(dt: number): this;
  weights(): Float32Array;
  inputWeights(): Float32Array;
  rotations(): Float32Array;
  gaze(): Float32Array;
  blinksThisFrame(): number;
  free(): void;
}

/** Live lip sync without a worklet: push mono samples, get the completed frames
 *  (8 numbers each: A I U E O N, volume, voiced). Throws on NaN samples or a bad rate. */
export class LiveVoice {
  /** steady: 10 ms more latency, no one-frame flickers of the mouth class. */
  constructor(sampleRate: number, options?: { steady?: boolean; speaker?: SpeakerSeed; profile?: string });
  /** Algorithmic latency in seconds (analysis window and resampling). */
  readonly latencyS: number;
  readonly framesOut: number;
  push(samples: Float32Array): Float32Array;
  free(): void;
}

/** Live voice frames from an AudioWorklet running omote's analyser. */
export class VoiceInput {
  readonly context: BaseAudioContext;
  /** Connect a source (microphone, media element, stream) to this node. */
  readonly node: AudioWorkletNode;
  /** The newest frame: A I U E O N, volume, voiced (1/0). */
  readonly latest: Float32Array;
  /** latest's A I U E O N (a view). */
  readonly vowels: Float32Array;
  readonly latestTime: number;
  readonly frames: number;
  /** algorithmicS: analysis + resampling; meanS / maxS: measured from each frame's
   *  centre to the end of the render quantum that completed it. */
  readonly latency: { algorithmicS: number; meanS: number; maxS: number };
  onframes: ((frames: Float32Array, first: number) => void) | null;
  onerror: ((error: Error) => void) | null;
  /** The newest frame; silence when nothing arrived for `staleS` seconds. */
  frame(staleS?: number): { vowels: Float32Array; volume: number; voiced: boolean };
  /** Whether the newest frame arrived within staleS (0.1) seconds of context time. */
  fresh(staleS?: number): boolean;
  close(): void;
  /** Only on listenToMicrophone's result (a `MicrophoneInput`): ends the capture. */
  stop?: () => void;
  stream?: MediaStream;
}

/** listenToMicrophone's VoiceInput: it has the capture's stream and `stop`. */
export interface MicrophoneInput extends VoiceInput {
  /** Ends the capture: the source is disconnected, the tracks stopped, the node closed. */
  stop: () => void;
  readonly stream: MediaStream;
}

/** An AudioWorkletNode with omote's live analyser; connect a source to `.node`. */
/** `workletUrl`: where `voice-worklet.js` (one module, no imports) is served; by default
 *  next to this module, where bundlers copy it. */
export function createVoiceInput(context: BaseAudioContext, options?: { wasm?: Parameters<typeof init>[0]; steady?: boolean; speaker?: SpeakerSeed; profile?: string; workletUrl?: string | URL }): Promise<VoiceInput>;

/** The microphone (echo cancellation, noise suppression and gain control off) into a
 *  new VoiceInput; `stop()` ends the capture. When starting fails after the microphone
 *  opened, its tracks are stopped before the promise rejects. `onstream` gets the
 *  MediaStream as soon as it is open. */
export function listenToMicrophone(context: BaseAudioContext, options?: { deviceId?: string; wasm?: Parameters<typeof init>[0]; steady?: boolean; speaker?: SpeakerSeed; profile?: string; workletUrl?: string | URL; onstream?: (stream: MediaStream) => void }): Promise<MicrophoneInput>;
