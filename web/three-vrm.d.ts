// Types of omote/three-vrm (web/src/three-vrm.js).
import type { VRM } from '@pixiv/three-vrm';
import type { Face, RigDesc, TrackingSettings, init } from './index.js';
import type { VrmApplier } from './vrm-applier.js';

export { VrmApplier } from './vrm-applier.js';

export function rigFromVrm(vrm: VRM): RigDesc;

/** How omote composes with the app's own animation of the avatar. */
export interface ComposeOptions {
  /** 'additive' (default): omote's head motion on top of the pose the app's animation
   *  (an AnimationMixer, a VRMA) gave neck and head this frame; 'replace': on the rest
   *  pose; 'off': the head is not touched. */
  head?: 'additive' | 'replace' | 'off';
  /** 'omote' (default): omote moves the eyes, three-vrm's lookAt is off; 'keep':
   *  three-vrm's `vrm.lookAt` and its `target` stay, omote's saccades are added on top. */
  lookAt?: 'omote' | 'keep';
  /** 'shared' (default): omote writes the mouth, the blinks, the look expressions while
   *  it moves the eyes, and what is given to `face.setExpression` or an afterglow; every
   *  other expression is the app's (its `expressionManager.setValue` stays, and is read
   *  into omote's acting so the override rules see it). 'all': omote writes every
   *  expression every frame. */
  expressions?: 'shared' | 'all';
}

export class VrmFace {
  constructor(vrm: VRM, face: Face, options?: ComposeOptions);
  readonly vrm: VRM;
  readonly face: Face;
  readonly options: Required<ComposeOptions>;
  /** What writes the face into the VRM. */
  readonly applier: VrmApplier;
  /** Advances the face (any dt, see Face.update) and poses the VRM; call after the
   *  app's animation (mixer.update(dt)) and before vrm.update(dt). */
  update(dt: number): this;
  /** Frees the face's wasm memory and gives the VRM back to three-vrm (its own override
   *  rules and lookAt work again; it may be attached again); `update` then throws. */
  free(): void;
}

export function attach(
  vrm: VRM,
  options?: { seed?: number; wasm?: Parameters<typeof init>[0]; tracking?: boolean | TrackingSettings | string } & ComposeOptions,
): Promise<VrmFace>;
