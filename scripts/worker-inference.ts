// npm run worker:inference: the model workers as a separate HTTP service (several can sit behind a
// load balancer; point the app at one with INFERENCE_URL). Models and sizes come from the environment
// (MODELS_DIR, MODELS_HUB_URL, MODELS_PRECISION, EMBEDDING_MODEL, CROSS_ENCODER_MODEL, MODEL_WORKERS,
// MODEL_THREADS_PER_WORKER,
// MODEL_BATCH_*, MODEL_QUEUE_LIMIT, MODEL_TIMEOUT_MS); INFERENCE_HOST (default 127.0.0.1) and
// INFERENCE_PORT (default 3100) say where it listens. SIGTERM/SIGINT drain and stop it.
import { z } from "zod";
import { parseModelsEnv } from "../lib/models-env";
import { LocalModelRuntime } from "../lib/models/local-runtime";
import { runtimeChoice } from "../lib/models/runtime";
import { createInferenceService } from "../lib/models/service-server";

const listenSchema = z.object({
  INFERENCE_HOST: z.string().min(1).default("127.0.0.1"),
  INFERENCE_PORT: z.coerce.number().int().min(0).max(65535).default(3100),
});

function fail(message: string): never {
  console.error(`\nThe inference service cannot start.\n${message}\n`);
  process.exit(1);
}

let env;
let listen;
try {
  env = parseModelsEnv(process.env);
  listen = listenSchema.parse({
    INFERENCE_HOST: process.env.INFERENCE_HOST || undefined,
    INFERENCE_PORT: process.env.INFERENCE_PORT || undefined,
  });
} catch (e) {
  fail((e as Error).message);
}
if (env.INFERENCE_URL) fail("INFERENCE_URL is set: that tells an app to use a service; the service itself runs the models. Unset it here.");

const settings = {
  enabled: true,
  precision: env.MODELS_PRECISION,
  embedder: env.EMBEDDING_MODEL,
  crossEncoder: env.CROSS_ENCODER_MODEL ?? null,
};
const runtime = new LocalModelRuntime(runtimeChoice(settings, env, process.env.DATA_DIR || ".data").local);
const service = createInferenceService(runtime);

// Load before listening, so the first request does not wait and a bad model is reported now.
const [embedder, cross] = await Promise.allSettled([runtime.embedder(), runtime.crossEncoder()]);
if (embedder.status === "rejected") console.error(`Embedding model unavailable: ${(embedder.reason as Error).message}`);
if (cross.status === "rejected") console.error(`Re-ranking model unavailable: ${(cross.reason as Error).message}`);

service.server.listen(listen.INFERENCE_PORT, listen.INFERENCE_HOST, () => {
  const address = service.server.address();
  const port = typeof address === "object" && address ? address.port : listen.INFERENCE_PORT;
  const models = [
    embedder.status === "fulfilled" ? embedder.value.info.id : null,
    cross.status === "fulfilled" ? cross.value?.info.id : null,
  ]
    .filter(Boolean)
    .join(", ");
  // The tests read this line to find the port.
  console.log(`inference service listening on http://${listen.INFERENCE_HOST}:${port} (${models || "no model loaded"})`);
});

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: draining`);
  await service.shutdown();
  console.log("stopped");
  process.exit(0);
}
process.once("SIGTERM", () => void stop("SIGTERM"));
process.once("SIGINT", () => void stop("SIGINT"));
