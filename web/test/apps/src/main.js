// A small app using the omote package as a user would (from its packed tarball), built
// for production by a bundler and checked in Chromium by ../check.mjs: a voice line
// drives the mouth, the microphone (Chromium's fake device playing a line) drives the
// mouth through the bundled AudioWorklet, a calibrated voice profile reaches that
// worklet, and a start that fails leaves no live track.
// The result goes to `window.omoteResult`.
import { init, analyseVoice, calibrateVoice, Face, listenToMicrophone } from 'omote';
import { rigFromVrm } from 'omote/three-vrm';

const MOUTH = ['aa', 'ih', 'ou', 'ee', 'oh'];
const mouth = (face) => {
  const w = face.weights();
  return MOUTH.reduce((s, n) => s + w[face.channels.indexOf(n)], 0);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function run() {
  const result = { bundledThreeVrm: typeof rigFromVrm === 'function' };
  await init();
  const ctx = new AudioContext();
  await ctx.resume();
  // 1. A voice line: decoded, analysed, said; the mouth in its voiced span.
  const audio = await ctx.decodeAudioData(await (await fetch('./line.wav')).arrayBuffer());
  const line = analyseVoice(audio.getChannelData(0), audio.sampleRate);
  const face = new Face({ presets: true }, { seed: 3 }).say(line);
  let sum = 0, n = 0, after = 0;
  for (let t = 0; t < audio.duration + 1; t += 1 / 60) {
    face.update(1 / 60);
    if (t > line.voicedStart + 0.05 && t < line.voicedEnd - 0.25) { sum += mouth(face); n++; }
    if (t > line.voicedEnd + 0.3) after = Math.max(after, mouth(face));
  }
  result.line = { meanMouthVoiced: sum / n, maxMouthAfter: after };
  // 2. The microphone through the worklet.
  const mic = await listenToMicrophone(ctx);
  const live = new Face({ presets: true }, { seed: 4 }).listen(mic);
  let maxMouth = 0;
  for (let i = 0; i < 180; i++) {
    await sleep(1000 / 60);
    live.update(1 / 60);
    maxMouth = Math.max(maxMouth, mouth(live));
  }
  const tracks = mic.stream.getTracks();
  result.mic = { frames: mic.frames, maxMouth, latencyMs: mic.latency.meanS * 1000 };
  mic.stop();
  result.mic.tracksEndedAfterStop = tracks.every((t) => t.readyState === 'ended');
  // 2b. A voice profile: calibrated from a card take (three vowel-like syllables with
  // pauses, made here), then closed shut and given to the microphone: the bundled
  // worklet reads with it, so the same microphone no longer opens the mouth.
  const rate = 16000;
  const syllable = (f1, f2) => {
    const pad = new Float32Array(rate / 4);
    const voice = Float32Array.from({ length: rate * 0.3 }, (_, i) => {
      let v = 0;
      for (let h = 1; h < 28; h++) {
        const f = 140 * h;
        v += (Math.exp(-(((f - f1) / 150) ** 2)) + 0.6 * Math.exp(-(((f - f2) / 250) ** 2))) * Math.sin(2 * Math.PI * f * i / rate);
      }
      return 0.1 * v;
    });
    return [...pad, ...voice, ...pad];
  };
  const take = Float32Array.from([...syllable(800, 1300), ...syllable(300, 2300), ...syllable(320, 800)]);
  const profile = JSON.parse(calibrateVoice(take, rate, { card: 'ka ki ku' }));
  let refused = '';
  try { calibrateVoice(take, rate, { card: 'ka ki ku ke' }); } catch (e) { refused = e.message; }
  profile.bias[5] = 50;
  const shutMic = await listenToMicrophone(ctx, { profile: JSON.stringify(profile) });
  const shut = new Face({ presets: true }, { seed: 5 }).listen(shutMic);
  let shutMouth = 0;
  for (let i = 0; i < 120; i++) {
    await sleep(1000 / 60);
    shut.update(1 / 60);
    shutMouth = Math.max(shutMouth, mouth(shut));
  }
  result.profile = { calibrated: profile.description, refused, frames: shutMic.frames, maxMouth: shutMouth };
  shutMic.stop();
  // 3. A start that fails (the worklet is not where it is said to be): no live track.
  let stream = null;
  try {
    await listenToMicrophone(ctx, { workletUrl: new URL('./no-such-worklet.js', location.href), onstream: (s) => { stream = s; } });
    result.failedStart = { threw: false };
  } catch (e) {
    result.failedStart = {
      threw: true,
      message: e.message,
      gotStream: !!stream,
      liveTracks: stream ? stream.getTracks().filter((t) => t.readyState === 'live').length : -1,
    };
  }
  await ctx.close();
  return result;
}

run().then(
  (r) => { window.omoteResult = r; document.getElementById('status').textContent = 'done'; },
  (e) => { window.omoteResult = { error: String((e && e.stack) || e) }; },
);
