import { ModelBusyError, ModelCancelledError, ModelTimeoutError } from "./batcher";
import { ModelUnavailableError } from "./files";
import { decodeVectors, type ServiceError } from "./service-protocol";
import type { Precision } from "./specs";
import type { CrossEncoder, Embedder, LoadedModelInfo, ModelCallOptions, ModelRuntime, ModelSlotStatus, RuntimeStatus } from "./types";

/**
 * The models of an inference service (npm run worker:inference) at INFERENCE_URL: the same worker
 * code behind HTTP, so several services can sit behind a load balancer. The service batches across
 * all its callers; this client sends each request as it comes. Errors keep their meaning: busy,
 * timeout and unavailable arrive as the same error classes the in-process runtime throws, so scorers
 * fall back the same way.
 */

export interface RemoteRuntimeConfig {
  url: string;
  precision: Precision;
  embedder: string;
  crossEncoder: string | null;
  timeoutMs: number;
}

const PROBE_TIMEOUT_MS = 5_000;
const RETRY_AFTER_MS = 10_000;

interface ServiceModels {
  embedder: ModelSlotStatus;
  crossEncoder: ModelSlotStatus;
}

export class RemoteModelRuntime implements ModelRuntime {
  private models: { at: number; value: Promise<ServiceModels> } | null = null;

  constructor(readonly config: RemoteRuntimeConfig) {}

  private endpoint(p: string): string {
    return `${this.config.url.replace(/\/+$/, "")}${p}`;
  }

  private async call<T>(p: string, body: unknown | null, timeoutMs: number, signal?: AbortSignal): Promise<T> {
    const limit = AbortSignal.timeout(timeoutMs);
    const both = signal ? AbortSignal.any([signal, limit]) : limit;
    let response: Response;
    try {
      response = await fetch(this.endpoint(p), {
        method: body === null ? "GET" : "POST",
        headers: body === null ? undefined : { "content-type": "application/json" },
        body: body === null ? undefined : JSON.stringify(body),
        signal: both,
      });
    } catch (e) {
      if (signal?.aborted) throw new ModelCancelledError();
      if (limit.aborted) throw new ModelTimeoutError(`The inference service at ${this.config.url} did not answer within ${timeoutMs} ms.`);
      const cause = (e as { cause?: { code?: string } }).cause?.code;
      throw new ModelUnavailableError(`The inference service at ${this.config.url} cannot be reached (${cause ?? (e as Error).message}).`);
    }
    const payload = (await response.json().catch(() => null)) as (T & Partial<ServiceError>) | null;
    if (response.ok && payload) return payload;
    const err = payload?.error;
    const message = err?.message ?? `The inference service at ${this.config.url} answered HTTP ${response.status}.`;
    if (err?.kind === "busy" || err?.kind === "draining") throw new ModelBusyError(message);
    if (err?.kind === "timeout") throw new ModelTimeoutError(message);
    throw new ModelUnavailableError(message);
  }

  private serviceModels(): Promise<ServiceModels> {
    if (!this.models || Date.now() - this.models.at > RETRY_AFTER_MS) {
      const value = this.call<ServiceModels>("/v1/models", null, PROBE_TIMEOUT_MS);
      value.catch(() => undefined);
      this.models = { at: Date.now(), value };
    }
    return this.models.value;
  }

  /** The service's model in a slot, checked against what the settings ask for. */
  private async loaded(slot: "embedder" | "crossEncoder", wanted: string): Promise<LoadedModelInfo> {
    const models = await this.serviceModels();
    const s = models[slot];
    const what = slot === "embedder" ? "embedding model" : "re-ranking model";
    if (s.state !== "ready" || !s.model)
      throw new ModelUnavailableError(
        `The inference service at ${this.config.url} has no ${what} ready${s.reason ? `: ${s.reason}` : "."}`,
      );
    if (s.model.name !== wanted || s.model.precision !== this.config.precision) {
      throw new ModelUnavailableError(
        `The inference service at ${this.config.url} runs ${s.model.name} (${s.model.precision}), but the settings ask for ${wanted} (${this.config.precision}); align the service's environment with the settings.`,
      );
    }
    return { ...s.model, source: "service" };
  }

  async embedder(): Promise<Embedder> {
    const info = await this.loaded("embedder", this.config.embedder);
    return {
      info,
      embed: async (texts: string[], kind: "query" | "passage", options: ModelCallOptions = {}) => {
        if (!texts.length) return [];
        const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
        const reply = await this.call<{ model: LoadedModelInfo; dimensions: number; vectors: string }>(
          "/v1/embed",
          { texts, kind, timeoutMs },
          timeoutMs + 1_000,
          options.signal,
        );
        if (reply.model.id !== info.id)
          throw new ModelUnavailableError(`The inference service changed its embedding model (${reply.model.id}, expected ${info.id}).`);
        return decodeVectors(reply.vectors, texts.length, reply.dimensions);
      },
    };
  }

  async crossEncoder(): Promise<CrossEncoder | null> {
    if (!this.config.crossEncoder) return null;
    const info = await this.loaded("crossEncoder", this.config.crossEncoder);
    return {
      info,
      score: async (pairs: [string, string][], options: ModelCallOptions = {}) => {
        if (!pairs.length) return [];
        const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
        const reply = await this.call<{ scores: number[] }>("/v1/score", { pairs, timeoutMs }, timeoutMs + 1_000, options.signal);
        if (reply.scores.length !== pairs.length)
          throw new ModelUnavailableError(`The inference service returned ${reply.scores.length} scores for ${pairs.length} pairs.`);
        return reply.scores;
      },
    };
  }

  async status(): Promise<RuntimeStatus> {
    try {
      const health = await this.call<{ runtime: RuntimeStatus }>("/health", null, PROBE_TIMEOUT_MS);
      return { ...health.runtime, mode: "service", url: this.config.url };
    } catch (e) {
      const reason = (e as Error).message;
      const down: ModelSlotStatus = { state: "unavailable", model: null, reason };
      return {
        mode: "service",
        url: this.config.url,
        embedder: down,
        crossEncoder: this.config.crossEncoder ? down : { state: "off", model: null, reason: "No model is configured." },
        pool: null,
        queues: { embedder: null, crossEncoder: null },
      };
    }
  }

  async close(): Promise<void> {
    this.models = null;
  }
}
