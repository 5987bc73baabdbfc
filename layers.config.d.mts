/** Types of layers.config.mjs (read by eslint.config.mjs and tests/unit/architecture.test.ts). */
export interface Layer {
  name: string;
  paths: string[];
}
export interface AllowedUpward {
  from: string;
  to: string;
  why: string;
}
export declare const LAYERS: Layer[];
export declare const ALLOWED_UPWARD: AllowedUpward[];
