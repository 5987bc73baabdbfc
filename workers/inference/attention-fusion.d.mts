// Types of attention-fusion.mjs (plain JavaScript so worker threads load it without a compiler).

export interface ModelShape {
  hiddenSize?: number;
  heads?: number;
  mask?: boolean;
}

export interface FusionResult {
  fused: Uint8Array | null;
  layers: number;
  reason: string | null;
}

export function fuseAttention(bytes: Uint8Array, modelShape?: ModelShape): FusionResult;
