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
export function analyseVoice(samples: Float32Array, sampleRate: number): VoiceAnalysis;

export type EyeMode = 'idle' | 'talking' | 'listening' | 'focused';

/** A rig description (the rig-file format of omote's README, as an object). */
export interface RigDesc {
  name?: string;
  presets?: boolean;
  arkit?: boolean;
  expressions?: Array<{ name: string; isBinary?: boolean; overrideBlink?: 'none' | 'block' | 'blend'; overrideLookAt?: 'none' | 'block' | 'blend'; overrideMouth?: 'none' | 'block' | 'blend' }>;
  lookAt?: object;
}

export class Face {
  constructor(rig: RigDesc | string, options?: { seed?: number });
  readonly channels: string[];
  setExpression(name: string, weight: number): this;
  setGaze(yawDeg: number, pitchDeg: number): this;
  setHead(q: ArrayLike<number>): this;
  setEyeMode(mode: EyeMode): this;
  say(analysis: Pick<VoiceAnalysis, 'frames' | 'fps' | 'voicedStart' | 'voicedEnd'>, options?: { afterglow?: Record<string, number> }): this;
  cut(): this;
  setLiveVowels(frame: ArrayLike<number>, voiced: boolean): this;
  update(dt: number): this;
  weights(): Float32Array;
  inputWeights(): Float32Array;
  rotations(): Float32Array;
  gaze(): Float32Array;
  blinksThisFrame(): number;
  free(): void;
}
