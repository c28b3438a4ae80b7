// Types of omote/vrm-applier (web/src/vrm-applier.js).
import type { VRM } from '@pixiv/three-vrm';
import type { Object3D, Quaternion } from 'three';

/** Writes a face into one @pixiv/three-vrm VRM (≥ 3). Construction switches three-vrm's
 *  override rules off (omote's weights are after the rules already), and its lookAt
 *  unless `lookAt: 'keep'`; `release()` switches them back on. One applier per VRM at a
 *  time: another is refused until this one is released. */
/** An expression's own override settings as the VRM has them, also while an applier has
 *  switched three-vrm's off (what `rigFromVrm` reads). */
export function ownOverrides(expression: { overrideBlink: string; overrideLookAt: string; overrideMouth: string }): { overrideBlink: string; overrideLookAt: string; overrideMouth: string };

export class VrmApplier {
  /** `head`: 'replace' (default: on the rest pose) or 'additive' (on the app's current
   *  pose); `lookAt`: 'omote' (default: `setEye` moves the eyes) or 'keep' (three-vrm's
   *  lookAt stays, `setGazeOffset` is added to it). */
  constructor(vrm: VRM, options?: { head?: 'replace' | 'additive'; lookAt?: 'omote' | 'keep' });
  readonly vrm: VRM;
  readonly headMode: 'replace' | 'additive';
  readonly lookAtMode: 'omote' | 'keep';
  /** VRM 0.x: rotations are mirrored, as three-vrm has the model face -Z. */
  readonly flip: boolean;
  /** The normalised neck, head and eye bones the model has, with their rest rotations. */
  readonly bones: Record<string, { node: Object3D; rest: Quaternion }>;
  /** Whether the model has the expression. */
  has(name: string): boolean;
  /** Gives the VRM back to three-vrm: its own override rules and lookAt work again. */
  release(): void;
  /** Sets one expression's weight (one the model lacks is ignored; not a finite number:
   *  throws). */
  setWeight(name: string, weight: number): void;
  /** Sets `weights[i]` on expression `names[i]` (one per name; checked as setWeight). */
  setWeights(names: ArrayLike<string>, weights: ArrayLike<number>): void;
  /** The head rotation (x y z w at `q[at..at + 4]`, +Z forward), split over neck and head. */
  setHead(q: ArrayLike<number>, at?: number): void;
  /** One eye's rotation (x y z w at `q[at..at + 4]`). */
  setEye(bone: 'leftEye' | 'rightEye', q: ArrayLike<number>, at?: number): void;
  /** With lookAt 'keep': degrees (yaw > 0 toward the avatar's left, pitch > 0 down)
   *  added to what three-vrm's lookAt applies at the next vrm.update. */
  setGazeOffset(yawDeg: number, pitchDeg: number): void;
}
