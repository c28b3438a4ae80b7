// The omote npm package on a three-vrm avatar: the avatar blinks and glances on its own;
// "Say the line" plays a bundled voice line with its lip sync and an afterglow smile;
// "Microphone" lip-syncs the avatar to your voice live (an AudioWorklet).
// ?rate=48000 picks the AudioContext's sample rate.
// For tests: window.omoteExample ({ready, error, say(), lineTime(), analysis, weights(),
// blinks and faceTime since the face was made, gazes, playThroughWorklet()}).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { VRMLoaderPlugin } from '@pixiv/three-vrm';
import { Speaker, analyseVoice, createVoiceInput, listenToMicrophone } from 'omote';
import { attach } from 'omote/three-vrm';

const LINE = '../../examples/scenes/demo/voice/aoi_1.wav';
const ex = { ready: false, error: null, blinks: 0, faceTime: 0, gazes: [], analysis: null, lineStart: null };
window.omoteExample = ex;
const $ = (id) => document.getElementById(id);

try {
  const canvas = $('view');
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true });
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x20242b);
  scene.add(new THREE.AmbientLight(0xffffff, 1.2));
  const sun = new THREE.DirectionalLight(0xffffff, 2);
  sun.position.set(0.5, 1.5, 2);
  scene.add(sun);
  const camera = new THREE.PerspectiveCamera(30, 1, 0.01, 100);
  const resize = () => {
    renderer.setSize(innerWidth, innerHeight, false);
    camera.aspect = innerWidth / Math.max(1, innerHeight);
    camera.updateProjectionMatrix();
  };
  addEventListener('resize', resize);
  resize();

  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser));
  const gltf = await loader.loadAsync('./avatar.vrm');
  const vrm = gltf.userData.vrm;
  scene.add(vrm.scene);
  const head = new THREE.Vector3();
  vrm.humanoid.getNormalizedBoneNode('head').getWorldPosition(head);
  camera.position.set(head.x, head.y + 0.05, head.z + 0.8);
  camera.lookAt(head.x, head.y + 0.05, head.z);

  const avatar = await attach(vrm, { seed: 7 });
  const rate = Number(new URLSearchParams(location.search).get('rate')) || undefined;
  const audioCtx = new AudioContext(rate ? { sampleRate: rate } : {});
  const buffer = await audioCtx.decodeAudioData(await (await fetch(LINE)).arrayBuffer());
  ex.analysis = analyseVoice(buffer.getChannelData(0), buffer.sampleRate);
  ex.channels = avatar.face.channels;
  ex.weights = () => Object.fromEntries(vrm.expressionManager.expressions.map((e) => [e.expressionName, e.weight]));
  ex.lineTime = () => (ex.lineStart === null ? null : (performance.now() - ex.lineStart) / 1000);
  ex.say = () => {
    const src = audioCtx.createBufferSource();
    src.buffer = buffer;
    src.connect(audioCtx.destination);
    audioCtx.resume();
    src.start();
    avatar.face.setExpression('happy', 0.2).say(ex.analysis, { afterglow: { happy: 0.4 } });
    ex.lineStart = performance.now();
  };
  $('say').onclick = ex.say;
  $('say').disabled = false;

  // Live: the microphone through omote's AudioWorklet drives the mouth.
  const showLive = (input) => {
    const f = input.frame();
    const v = ['A', 'I', 'U', 'E', 'O', 'N'][f.vowels.indexOf(Math.max(...f.vowels))];
    $('live').textContent = `${f.voiced ? v : '·'}  latency ${(input.latency.meanS * 1000).toFixed(1)} ms`
      + ` (max ${(input.latency.maxS * 1000).toFixed(1)}, analysis ${(input.latency.algorithmicS * 1000).toFixed(1)}) at ${input.context.sampleRate} Hz`;
  };
  $('mic').onclick = async () => {
    try {
      if (ex.mic) {
        ex.mic.stop();
        avatar.face.listen(null);
        ex.mic = null;
        $('mic').textContent = 'Microphone';
        return;
      }
      await audioCtx.resume();
      const mic = await listenToMicrophone(audioCtx);
      mic.onframes = () => showLive(mic);
      avatar.face.listen(mic);
      ex.mic = mic;
      $('mic').textContent = 'Stop microphone';
    } catch (e) {
      $('error').textContent = `microphone: ${e.message}`;
    }
  };
  $('mic').disabled = false;

  // For tests: the bundled line played by an <audio> element through the worklet (the
  // microphone's path), collecting the live frames and three-vrm's mouth meanwhile.
  ex.playThroughWorklet = async () => {
    await audioCtx.resume();
    const el = new Audio(LINE);
    const source = audioCtx.createMediaElementSource(el);
    const input = await createVoiceInput(audioCtx);
    source.connect(input.node);
    source.connect(audioCtx.destination);
    const frames = [];
    const mouth = [];
    input.onframes = (f, first) => {
      for (let i = 0; i < f.length; i++) frames[first * 8 + i] = f[i];
      showLive(input);
    };
    ex.onFrame = () => {
      const w = ex.weights();
      mouth.push({ voiced: input.frame().voiced, mouth: w.aa + w.ih + w.ou + w.ee + w.oh });
    };
    avatar.face.listen(input);
    await el.play();
    await new Promise((r) => { el.onended = r; });
    await new Promise((r) => setTimeout(r, 400));
    avatar.face.listen(null);
    ex.onFrame = null;
    input.close();
    return { frames: Array.from(frames, (v) => v || 0), latency: input.latency, sampleRate: audioCtx.sampleRate, mouth };
  };
  // For tests: a worklet started from a character's voice (here the bundled line's),
  // and one given a broken seed, which must refuse to start.
  ex.checkWorkletSeed = async () => {
    const speaker = new Speaker();
    speaker.addLine(buffer.getChannelData(0), buffer.sampleRate);
    const out = { seedLength: speaker.voiceSeed().length };
    const seeded = await createVoiceInput(audioCtx, { speaker });
    out.seededStarted = seeded.latency.algorithmicS > 0;
    seeded.close();
    speaker.free();
    try {
      (await createVoiceInput(audioCtx, { speaker: [1, 2] })).close();
      out.badSeedError = null;
    } catch (e) {
      out.badSeedError = String(e.message);
    }
    return out;
  };
  $('state').textContent = `ready: ${ex.analysis.frames.length / 6} frames of lip sync`;

  let last = performance.now();
  renderer.setAnimationLoop((now) => {
    const dt = Math.min(0.1, Math.max(1e-3, (now - last) / 1000));
    last = now;
    avatar.update(dt);
    ex.faceTime += dt;
    ex.blinks += avatar.face.blinksThisFrame();
    const g = avatar.face.gaze();
    ex.gazes.push([g[0], g[1]]);
    if (ex.gazes.length > 2000) ex.gazes.shift();
    vrm.update(dt);
    if (ex.onFrame) ex.onFrame();
    renderer.render(scene, camera);
  });
  ex.ready = true;
} catch (e) {
  ex.error = String(e && e.stack ? e.stack : e);
  $('error').textContent = ex.error;
}
