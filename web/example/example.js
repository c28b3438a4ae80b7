// The omote npm package on a three-vrm avatar: the avatar blinks and glances on its own;
// "Say the line" plays a bundled voice line with its lip sync and an afterglow smile.
// For tests: window.omoteExample ({ready, error, say(), lineTime(), analysis, weights(),
// blinks and faceTime since the face was made, gazes}).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { VRMLoaderPlugin } from '@pixiv/three-vrm';
import { analyseVoice } from 'omote';
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

  const face = await attach(vrm, { seed: 7 });
  const audioCtx = new AudioContext();
  const buffer = await audioCtx.decodeAudioData(await (await fetch(LINE)).arrayBuffer());
  ex.analysis = analyseVoice(buffer.getChannelData(0), buffer.sampleRate);
  ex.channels = face.face.channels;
  ex.weights = () => Object.fromEntries(vrm.expressionManager.expressions.map((e) => [e.expressionName, e.weight]));
  ex.lineTime = () => (ex.lineStart === null ? null : (performance.now() - ex.lineStart) / 1000);
  ex.say = () => {
    const src = audioCtx.createBufferSource();
    src.buffer = buffer;
    src.connect(audioCtx.destination);
    audioCtx.resume();
    src.start();
    face.face.setExpression('happy', 0.2).say(ex.analysis, { afterglow: { happy: 0.4 } });
    ex.lineStart = performance.now();
  };
  $('say').onclick = ex.say;
  $('say').disabled = false;
  $('state').textContent = `ready: ${ex.analysis.frames.length / 6} frames of lip sync`;

  let last = performance.now();
  renderer.setAnimationLoop((now) => {
    const dt = Math.min(0.1, Math.max(1e-3, (now - last) / 1000));
    last = now;
    face.update(dt);
    ex.faceTime += dt;
    ex.blinks += face.face.blinksThisFrame();
    const g = face.face.gaze();
    ex.gazes.push([g[0], g[1]]);
    if (ex.gazes.length > 2000) ex.gazes.shift();
    vrm.update(dt);
    renderer.render(scene, camera);
  });
  ex.ready = true;
} catch (e) {
  ex.error = String(e && e.stack ? e.stack : e);
  $('error').textContent = ex.error;
}
