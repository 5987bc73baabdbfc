/**
 * Vectors already computed for an object (a search record, then the evidence piece made from it),
 * kept beside the object rather than in it: 384 floats per piece would bloat every stored run and
 * every JSON response. A document search hands its stored vectors to verbalize, verbalize to the
 * piece, and the dense scorer reads them instead of embedding the same passage again. Weak keys: the
 * vectors go when the objects do.
 */

export interface KnownVector {
  /** The embedder id the vector belongs to: another model's vector is never used. */
  model: string;
  vector: Float32Array;
}

const known = new WeakMap<object, KnownVector>();

export function rememberVector(owner: object, vector: KnownVector): void {
  known.set(owner, vector);
}

export function knownVector(owner: object, model: string): Float32Array | null {
  const v = known.get(owner);
  return v && v.model === model ? v.vector : null;
}

/** Carries a record's vector over to what was made from it. */
export function passVector(from: object, to: object): void {
  const v = known.get(from);
  if (v) known.set(to, v);
}
