// Types of omote/three-vrm (web/src/three-vrm.js).
import type { Face, RigDesc } from './index.js';
import type { VrmApplier } from './vrm-applier.js';

export { VrmApplier } from './vrm-applier.js';

export function rigFromVrm(vrm: unknown): RigDesc;

export class VrmFace {
  constructor(vrm: unknown, face: Face);
  readonly vrm: unknown;
  readonly face: Face;
  /** What writes the face into the VRM. */
  readonly applier: VrmApplier;
  /** Advances the face and poses the VRM; call before vrm.update(dt). */
  update(dt: number): this;
}

export function attach(vrm: unknown, options?: { seed?: number; wasm?: unknown }): Promise<VrmFace>;
