// Live lip sync in the browser: an AudioWorkletNode running omote's streaming analyser
// (voice-worklet.js) on whatever audio is connected to it — a microphone, an <audio>
// element, a WebRTC stream — and handing the newest vowel frame to a Face.
import { compiledModule, init, settings, voiceProfile, voiceSeed } from './index.js';

const STRIDE = 8;

/** Live voice frames from an AudioWorklet. Make one with `createVoiceInput`. */
export class VoiceInput {
  constructor(context, node, ready) {
    /** The AudioContext. */
    this.context = context;
    /** The AudioWorkletNode: connect a source to it. */
    this.node = node;
    /** The newest frame: 8 numbers (A I U E O N, volume 0–1, voiced 1/0). */
    this.latest = new Float32Array(STRIDE);
    /** `latest`'s A I U E O N (a view, no copy). */
    this.vowels = this.latest.subarray(0, 6);
    /** Context time (s) at which `latest` was complete. */
    this.latestTime = -Infinity;
    /** Frames received. */
    this.frames = 0;
    /** Latency: `algorithmicS` (analysis + resampling, from the worklet), and measured
     *  from each frame's centre to the end of the render quantum that completed it:
     *  `meanS`, `maxS` (the capture device's own buffering comes on top). */
    this.latency = { algorithmicS: ready.latencyS, meanS: 0, maxS: 0 };
    /** Called with (Float32Array of 8 × n numbers, index of the first frame). */
    this.onframes = null;
    /** Called with an Error the worklet reported. */
    this.onerror = null;
    this._latencySum = 0;
    node.port.onmessage = (m) => this._message(m.data);
  }

  _message(d) {
    if (d.type === 'error') {
      if (this.onerror) this.onerror(new Error(d.message));
      else console.error(`omote VoiceInput: ${d.message}`);
      return;
    }
    if (d.type !== 'frames') return;
    const n = d.frames.length / STRIDE;
    for (let k = 0; k < n; k++) {
      const lat = d.readyS - (d.first + k + 0.5) * 0.01;
      this._latencySum += lat;
      if (lat > this.latency.maxS) this.latency.maxS = lat;
    }
    this.frames += n;
    this.latency.meanS = this._latencySum / this.frames;
    this.latest.set(d.frames.subarray((n - 1) * STRIDE, n * STRIDE));
    this.latestTime = d.contextTime;
    if (this.onframes) this.onframes(d.frames, d.first);
  }

  /** The newest frame as `{ vowels (6: A I U E O N), volume, voiced }`; silence when
   *  nothing arrived for `staleS` seconds of context time (a suspended or closed
   *  context must not leave the mouth open). */
  frame(staleS = 0.1) {
    const fresh = this.fresh(staleS);
    return { vowels: this.vowels, volume: fresh ? this.latest[6] : 0, voiced: fresh && this.latest[7] === 1 };
  }

  /** Whether `latest` arrived within `staleS` seconds of context time. */
  fresh(staleS = 0.1) {
    return this.context.currentTime - this.latestTime <= staleS;
  }

  /** Disconnects the node and frees the worklet's analyser. */
  close() {
    this.node.port.postMessage('close');
    this.node.disconnect();
  }
}

/** An AudioWorkletNode with omote's live analyser on `context` (any sample rate).
 *  Connect a source to `input.node`. The node outputs silence and is connected to the
 *  destination so the audio graph keeps pulling it. `steady`: 10 ms more latency for a
 *  mouth without one-frame flickers. `speaker`: a `Speaker` (or its `voiceSeed()`) whose
 *  voice the stream starts from, so the first words are read against that voice.
 *  `profile`: a lip sync profile's JSON text (from `calibrateVoice`) the stream reads with.
 *  `workletUrl`: where the worklet module is served (default: `voice-worklet.js` next
 *  to this file, which bundlers copy). */
export async function createVoiceInput(context, options) {
  const { wasm, steady = false, speaker, profile, workletUrl } = settings('createVoiceInput', options, ['wasm', 'steady', 'speaker', 'profile', 'workletUrl']);
  if (!context || !context.audioWorklet) throw new Error('createVoiceInput: an AudioContext (with audioWorklet: a secure context, https or localhost) is needed');
  await init(wasm);
  const seed = voiceSeed(speaker);
  const voice = voiceProfile('createVoiceInput', profile);
  // The published worklet is one module with no imports (web/build.sh), so a bundler
  // that copies or inlines this one file has all of it; `workletUrl` is for apps that
  // serve it themselves.
  const url = workletUrl ?? new URL('./voice-worklet.js', import.meta.url);
  try {
    await context.audioWorklet.addModule(url);
  } catch (e) {
    throw new Error(`createVoiceInput: the worklet ${String(url).slice(0, 80)} did not load (${(e && e.message) || e}); serve dist/voice-worklet.js and pass its URL as \`workletUrl\``);
  }
  const node = new AudioWorkletNode(context, 'omote-voice', {
    numberOfInputs: 1,
    numberOfOutputs: 1,
    outputChannelCount: [1],
    processorOptions: { module: compiledModule(), steady: !!steady, speaker: seed, profile: voice },
  });
  const ready = await new Promise((resolve, reject) => {
    node.port.onmessage = (m) => {
      if (m.data.type === 'ready') resolve(m.data);
      else if (m.data.type === 'error') {
        // The processor did not start (a broken voice seed, a wasm failure): end it, or
        // it would idle in the audio thread for the context's life.
        node.port.postMessage('close');
        reject(new Error(`createVoiceInput: ${m.data.message}`));
      }
    };
    node.onprocessorerror = () => reject(new Error('createVoiceInput: the worklet failed to start'));
  });
  node.connect(context.destination);
  return new VoiceInput(context, node, ready);
}

/** The microphone into a new VoiceInput (asks for permission). The browser's echo
 *  cancellation, noise suppression and gain control are off: they bend the spectrum the
 *  vowels are read from. `stop()` on the result ends the capture. If starting fails
 *  after the microphone was opened (the worklet did not load, a bad seed), its tracks
 *  are stopped before the error is thrown: nothing keeps capturing. `onstream` is
 *  called with the MediaStream as soon as it is open (an app's handle to it while the
 *  worklet loads). */
export async function listenToMicrophone(context, options) {
  const { deviceId, wasm, steady = false, speaker, profile, workletUrl, onstream } = settings('listenToMicrophone', options, ['deviceId', 'wasm', 'steady', 'speaker', 'profile', 'workletUrl', 'onstream']);
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { deviceId, echoCancellation: false, noiseSuppression: false, autoGainControl: false, channelCount: 1 },
  });
  const stopTracks = () => { for (const t of stream.getTracks()) t.stop(); };
  let input = null;
  let source = null;
  try {
    if (onstream) onstream(stream);
    input = await createVoiceInput(context, { wasm, steady, speaker, profile, workletUrl });
    source = context.createMediaStreamSource(stream);
    source.connect(input.node);
  } catch (e) {
    stopTracks();
    if (source) source.disconnect();
    if (input) input.close();
    throw e;
  }
  input.stream = stream;
  input.stop = () => {
    source.disconnect();
    stopTracks();
    input.close();
  };
  return input;
}
