// Types of omote/vrm-applier (web/src/vrm-applier.js).

/** Writes a face into one @pixiv/three-vrm VRM (≥ 3). Construction switches three-vrm's
 *  override rules and lookAt off (omote's weights are after the rules already). */
export class VrmApplier {
  constructor(vrm: unknown);
  readonly vrm: unknown;
  /** VRM 0.x: rotations are mirrored, as three-vrm has the model face -Z. */
  readonly flip: boolean;
  /** The normalised neck, head and eye bones the model has, with their rest rotations. */
  readonly bones: Record<string, { node: unknown; rest: unknown }>;
  /** Whether the model has the expression. */
  has(name: string): boolean;
  /** Sets one expression's weight (one the model lacks is ignored). */
  setWeight(name: string, weight: number): void;
  /** Sets `weights[i]` on expression `names[i]`. */
  setWeights(names: ArrayLike<string>, weights: ArrayLike<number>): void;
  /** The head rotation (x y z w at `q[at..at + 4]`, +Z forward), split over neck and head. */
  setHead(q: ArrayLike<number>, at?: number): void;
  /** One eye's rotation (x y z w at `q[at..at + 4]`). */
  setEye(bone: 'leftEye' | 'rightEye', q: ArrayLike<number>, at?: number): void;
}
