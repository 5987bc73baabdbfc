import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { ONNX_FILES, type ModelSpec, type Precision, TOKENIZER_CONFIG_FILE, TOKENIZER_FILE } from "./specs";

/**
 * Where a model's files come from, in order: MODELS_DIR (read-only, shipped with the workspace), the
 * download cache under DATA_DIR/models, then a Hugging Face–compatible hub (MODELS_HUB_URL), whose
 * files are checked against the checksum the hub states for them before they enter the cache.
 */

export interface ModelLocations {
  modelsDir: string;
  /** DATA_DIR/models */
  cacheDir: string;
  hubUrl?: string | null;
  /** Download time limit per file. */
  downloadTimeoutMs?: number;
}

export interface ModelFiles {
  onnxPath: string;
  tokenizerPath: string;
  tokenizerConfigPath: string | null;
  precision: Precision;
  sha256: string;
  bytes: number;
  /** "repository": shipped with Mosaic (models/, e.g. the schema linker). */
  source: "models-dir" | "cache" | "hub" | "repository";
  /** Set when the precision asked for was not available and the other one is used. */
  note: string | null;
}

export class ModelUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelUnavailableError";
  }
}

const DEFAULT_DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

// sha256 of a file, remembered by (path, size, mtime): a 90 MB model is hashed once per process.
const hashes = new Map<string, string>();

export async function sha256File(file: string): Promise<string> {
  const st = statSync(file);
  const key = `${file}\u0000${st.size}\u0000${st.mtimeMs}`;
  const known = hashes.get(key);
  if (known) return known;
  const h = createHash("sha256");
  await pipeline(createReadStream(file), new Transform({ transform: (chunk, _enc, done) => (h.update(chunk), done()) }));
  const digest = h.digest("hex");
  hashes.set(key, digest);
  return digest;
}

function localFolders(spec: ModelSpec, loc: ModelLocations): { dir: string; source: ModelFiles["source"] }[] {
  const dirs = [path.resolve(loc.modelsDir, spec.name), path.resolve(loc.modelsDir, path.basename(spec.name))];
  const out: { dir: string; source: ModelFiles["source"] }[] = [...new Set(dirs)].map((dir) => ({ dir, source: "models-dir" as const }));
  out.push({ dir: cacheFolder(spec, loc), source: "cache" });
  return out;
}

export function cacheFolder(spec: ModelSpec, loc: Pick<ModelLocations, "cacheDir">): string {
  return path.resolve(loc.cacheDir, spec.repo, spec.revision);
}

function complete(dir: string, precision: Precision): boolean {
  return existsSync(path.join(dir, ONNX_FILES[precision])) && existsSync(path.join(dir, TOKENIZER_FILE));
}

async function filesIn(dir: string, precision: Precision, source: ModelFiles["source"], note: string | null): Promise<ModelFiles> {
  const onnxPath = path.join(dir, ONNX_FILES[precision]);
  const config = path.join(dir, TOKENIZER_CONFIG_FILE);
  return {
    onnxPath,
    tokenizerPath: path.join(dir, TOKENIZER_FILE),
    tokenizerConfigPath: existsSync(config) ? config : null,
    precision,
    sha256: await sha256File(onnxPath),
    bytes: statSync(onnxPath).size,
    source,
    note,
  };
}

/**
 * The files of `spec` at `precision`. Local folders first; then the hub (when configured); then the
 * other precision in a local folder (a cross-encoder shipped only as fp32), with a note saying so.
 * Throws ModelUnavailableError saying where it looked and what to do.
 */
export async function locateModel(spec: ModelSpec, precision: Precision, loc: ModelLocations): Promise<ModelFiles> {
  const folders = localFolders(spec, loc);
  for (const f of folders) if (complete(f.dir, precision)) return filesIn(f.dir, precision, f.source, null);
  let hubProblem: string | null = null;
  const other: Precision = precision === "int8" ? "fp32" : "int8";
  if (loc.hubUrl) {
    try {
      const dir = await downloadModel(spec, precision, loc);
      return filesIn(dir, precision, "hub", null);
    } catch (e) {
      hubProblem = (e as Error).message;
      // Many hub repositories ship only fp32 (or name their int8 file otherwise): the other precision then serves.
      if (e instanceof HubMissingFileError) {
        try {
          const dir = await downloadModel(spec, other, loc);
          return filesIn(
            dir,
            other,
            "hub",
            `${spec.name} has no ${precision} file on the hub (${ONNX_FILES[precision]}); the ${other} file is used.`,
          );
        } catch (again) {
          hubProblem = `${hubProblem} ${(again as Error).message}`;
        }
      }
    }
  }
  for (const f of folders) {
    if (complete(f.dir, other))
      return filesIn(
        f.dir,
        other,
        f.source,
        `${spec.name} has no ${precision} file (${ONNX_FILES[precision]}); the ${other} file is used.`,
      );
  }
  const looked = folders.map((f) => f.dir).join(", ");
  throw new ModelUnavailableError(
    hubProblem
      ? `${spec.name} (${precision}) is not in ${looked}, and the download from ${loc.hubUrl} failed: ${hubProblem}`
      : `${spec.name} (${precision}) is not in ${looked}, and no model hub is configured (MODELS_HUB_URL) to download it from.`,
  );
}

/** Downloads what is missing of the model into the cache; returns the cache folder. */
export async function downloadModel(spec: ModelSpec, precision: Precision, loc: ModelLocations): Promise<string> {
  const dir = cacheFolder(spec, loc);
  const wanted: { file: string; required: boolean }[] = [
    { file: TOKENIZER_FILE, required: true },
    { file: TOKENIZER_CONFIG_FILE, required: false },
    { file: ONNX_FILES[precision], required: true },
  ];
  for (const { file, required } of wanted) {
    if (existsSync(path.join(dir, file))) continue;
    try {
      await downloadFile(loc.hubUrl!, spec, file, path.join(dir, file), loc.downloadTimeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS);
    } catch (e) {
      if (!required && e instanceof HubMissingFileError) continue;
      throw e;
    }
  }
  return dir;
}

class HubMissingFileError extends Error {}

export function hubFileUrl(hubUrl: string, spec: Pick<ModelSpec, "repo" | "revision">, file: string): string {
  return `${hubUrl.replace(/\/+$/, "")}/${spec.repo}/resolve/${encodeURIComponent(spec.revision)}/${file}`;
}

/**
 * The checksum the hub states for a file. Large (LFS) files carry their sha256 in X-Linked-Etag (on
 * the redirect to the storage host) or in ETag; small files stored in git carry the git blob sha1.
 */
interface StatedChecksum {
  kind: "sha256" | "git-sha1";
  value: string;
}

function statedChecksum(headers: Headers): StatedChecksum | null {
  for (const name of ["x-linked-etag", "etag"]) {
    const raw = headers.get(name)?.replace(/^W\//, "").replace(/"/g, "").trim().toLowerCase();
    if (!raw) continue;
    if (/^[0-9a-f]{64}$/.test(raw)) return { kind: "sha256", value: raw };
    if (/^[0-9a-f]{40}$/.test(raw)) return { kind: "git-sha1", value: raw };
  }
  return null;
}

/** GET with redirects followed by hand, so the checksum headers of the first (hub) response are kept. */
async function fetchFromHub(url: string, signal: AbortSignal): Promise<{ response: Response; checksum: StatedChecksum | null }> {
  let checksum: StatedChecksum | null = null;
  let current = url;
  for (let hop = 0; hop < 5; hop++) {
    const response = await fetch(current, { redirect: "manual", signal });
    checksum ??= statedChecksum(response.headers);
    if (response.status >= 300 && response.status < 400 && response.headers.get("location")) {
      await response.body?.cancel();
      current = new URL(response.headers.get("location")!, current).toString();
      continue;
    }
    return { response, checksum };
  }
  throw new ModelUnavailableError(`${url} redirects too many times.`);
}

async function downloadFile(hubUrl: string, spec: ModelSpec, file: string, dest: string, timeoutMs: number): Promise<void> {
  const url = hubFileUrl(hubUrl, spec, file);
  const signal = AbortSignal.timeout(timeoutMs);
  let fetched;
  try {
    fetched = await fetchFromHub(url, signal);
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new ModelUnavailableError(`${url} could not be reached (${cause?.code ?? cause?.message ?? (e as Error).message}).`);
  }
  const { response, checksum } = fetched;
  if (response.status === 404) {
    await response.body?.cancel();
    throw new HubMissingFileError(`${url} does not exist on the hub (404).`);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new ModelUnavailableError(`${url} answered HTTP ${response.status}.`);
  }
  if (!checksum) {
    await response.body.cancel();
    throw new ModelUnavailableError(
      `${url} came without a checksum (no X-Linked-Etag or ETag with a sha256), so it cannot be verified; it was not used.`,
    );
  }
  mkdirSync(path.dirname(dest), { recursive: true });
  const partial = `${dest}.partial-${process.pid}`;
  const sha256 = createHash("sha256");
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    await pipeline(
      Readable.fromWeb(response.body as unknown as WebReadableStream),
      new Transform({
        transform(chunk: Buffer, _enc, done) {
          sha256.update(chunk);
          size += chunk.length;
          // Git blob ids hash a header with the size first, so small git files are kept to hash at the end.
          if (checksum.kind === "git-sha1") chunks.push(chunk);
          done(null, chunk);
        },
      }),
      createWriteStream(partial),
    );
    const actual =
      checksum.kind === "sha256"
        ? sha256.digest("hex")
        : createHash("sha1").update(`blob ${size}\0`).update(Buffer.concat(chunks)).digest("hex");
    if (actual !== checksum.value) {
      throw new ModelUnavailableError(
        `${url} does not match its checksum (${checksum.kind} ${checksum.value}, got ${actual}); the download was discarded.`,
      );
    }
    renameSync(partial, dest);
  } catch (e) {
    rmSync(partial, { force: true });
    if (e instanceof ModelUnavailableError) throw e;
    throw new ModelUnavailableError(`${url} could not be downloaded (${(e as Error).message}).`);
  }
}
