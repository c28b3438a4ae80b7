// The three-vrm adapter handing a VRM back (used by crates/omote-web/tests/compose.rs):
//
//   node reattach.mjs REPO MODEL.vrm
//
// A VRM whose expression overrides the blink is attached, acts that expression with a
// blink requested, is freed and is attached again. Prints one JSON report: the model's
// override settings as `rigFromVrm` reads them before, while attached, after `free` (on
// the three-vrm expressions themselves) and at the second attach; whether a second
// `attach` while attached was refused; three-vrm's lookAt after `free` (autoUpdate and
// its own applier back); and the widest blink of each attached run.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { VRMLoaderPlugin } from '@pixiv/three-vrm';

const [repo, model] = process.argv.slice(2);
const omote = await import(pathToFileURL(`${repo}/web/dist/index.js`));
const { attach, rigFromVrm } = await import(pathToFileURL(`${repo}/web/dist/three-vrm.js`));
await omote.init(readFileSync(`${repo}/web/dist/omote_web_bg.wasm`));

class StubTextures {
  constructor() { this.name = 'omote_stub_textures'; }
  loadTexture() { return Promise.resolve(new THREE.Texture()); }
}
const loader = new GLTFLoader();
loader.register(() => new StubTextures());
loader.register((p) => new VRMLoaderPlugin(p));
const buf = readFileSync(model);
const vrm = (await loader.parseAsync(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), '')).userData.vrm;

const overrides = (rig) => rig.expressions.map((e) => `${e.name}:${e.overrideBlink}/${e.overrideLookAt}/${e.overrideMouth}`).join(' ');
const onModel = () => vrm.expressionManager.expressions.map((e) => `${e.expressionName}:${e.overrideBlink}/${e.overrideLookAt}/${e.overrideMouth}`).join(' ');
const before = rigFromVrm(vrm);
const beforeOnModel = onModel();
const acted = before.expressions.find((e) => e.overrideBlink !== 'none' && !['blink', 'blinkLeft', 'blinkRight'].includes(e.name));
const lookAt = { autoUpdate: vrm.lookAt.autoUpdate, applier: vrm.lookAt.applier };

async function run() {
  const avatar = await attach(vrm, { seed: 3 });
  const during = overrides(rigFromVrm(vrm));
  let refused = null;
  try { await attach(vrm); } catch (e) { refused = e.message; }
  if (acted) avatar.face.setExpression(acted.name, 0.6);
  avatar.face.requestBlink(0);
  let blink = 0;
  for (let i = 0; i < 60; i++) {
    avatar.update(1 / 60);
    vrm.update(1 / 60);
    blink = Math.max(blink, vrm.expressionManager.getValue('blink') ?? 0);
  }
  avatar.free();
  return { during, refused, blink };
}

const first = await run();
const afterFree = {
  onModel: onModel(),
  lookAtAutoUpdate: vrm.lookAt.autoUpdate === lookAt.autoUpdate,
  lookAtApplier: vrm.lookAt.applier === lookAt.applier,
};
const second = await run();
// 'keep' leaves three-vrm's lookAt on and wraps its applier: free unwraps it.
const kept = await attach(vrm, { lookAt: 'keep' });
const wrapped = Object.prototype.hasOwnProperty.call(vrm.lookAt.applier, 'applyYawPitch');
kept.free();
const unwrapped = !Object.prototype.hasOwnProperty.call(vrm.lookAt.applier, 'applyYawPitch');
console.log(JSON.stringify({
  model,
  acted: acted ? acted.name : null,
  before: overrides(before),
  beforeOnModel,
  finalOnModel: onModel(),
  first,
  afterFree,
  second,
  keepWrapped: wrapped,
  keepUnwrapped: unwrapped,
}));
