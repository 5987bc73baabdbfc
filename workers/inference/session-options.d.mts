// Types of session-options.mjs (plain JavaScript so worker threads load it without a compiler).
import type { InferenceSession } from "onnxruntime-node";

export function sessionOptions(threads: number): InferenceSession.SessionOptions;
