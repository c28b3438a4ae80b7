// The AudioWorklet side of live lip sync (loaded by createVoiceInput in voice-input.js):
// every render quantum (128 samples at the context's rate) goes into omote's streaming
// analyser in wasm, and each finished 10 ms frame is posted to the page with the time
// its audio was complete, so the page can state the latency it gets.
import './worklet-globals.js';
import { initSync, LiveVoice } from './omote_web.js';

const STRIDE = 8; // A I U E O N, volume, voiced

class OmoteVoiceProcessor extends AudioWorkletProcessor {
  constructor(options) {
    super();
    this.voice = null;
    this.mono = new Float32Array(128);
    this.pushed = 0;
    this.errors = 0;
    try {
      initSync({ module: options.processorOptions.module });
      // The speaker's own lip sync profile, if the page gave one (its JSON text).
      this.voice = new LiveVoice(sampleRate, !!options.processorOptions.steady, options.processorOptions.profile ?? undefined);
      // The character's voice, as numbers: this scope has its own wasm instance.
      if (options.processorOptions.speaker) this.voice.startFromSpeaker(options.processorOptions.speaker);
      this.port.postMessage({ type: 'ready', latencyS: this.voice.latencyS, sampleRate });
    } catch (e) {
      this.port.postMessage({ type: 'error', message: String((e && e.message) || e) });
    }
    this.port.onmessage = (m) => {
      if (m.data === 'close') {
        this.closed = true;
        if (this.voice) this.voice.free();
        this.voice = null;
      }
    };
  }

  process(inputs, outputs) {
    if (this.closed) return false;
    if (!this.voice) return true;
    const channels = inputs[0] || [];
    const n = channels.length ? channels[0].length : 128;
    if (this.mono.length !== n) this.mono = new Float32Array(n);
    const mono = this.mono;
    // Channels averaged; no input (a paused source) is silence, so the stream's
    // clock stays the context's.
    mono.fill(0);
    for (const ch of channels) for (let i = 0; i < n; i++) mono[i] += ch[i];
    if (channels.length > 1) for (let i = 0; i < n; i++) mono[i] /= channels.length;
    let frames;
    try {
      frames = this.voice.push(mono);
      this.pushed += n;
    } catch (e) {
      // A NaN from the audio graph: that quantum is dropped and said once per second.
      if (this.errors++ % 375 === 0) this.port.postMessage({ type: 'error', message: String((e && e.message) || e) });
      return true;
    }
    if (frames.length) {
      const count = frames.length / STRIDE;
      const first = this.voice.framesOut - count;
      // The stream's time at the end of this quantum (the audio this node was given:
      // the graph does not run it while nothing is connected), against each frame's
      // centre.
      const readyS = this.pushed / sampleRate;
      this.port.postMessage({ type: 'frames', frames, first, readyS, contextTime: currentTime + n / sampleRate }, [frames.buffer]);
    }
    // Silence out (the node is connected to the destination so the graph pulls it).
    for (const out of outputs) for (const ch of out) ch.fill(0);
    return true;
  }
}

registerProcessor('omote-voice', OmoteVoiceProcessor);
