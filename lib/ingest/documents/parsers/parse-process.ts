import { z } from "zod";
import { type ChildChannel, type ChildChannelOptions, helperFilePath, residentMb } from "../../../backends/child-channel";
import { ChildPool } from "../../../backends/child-pool";
import { AppError } from "../../../errors";
import { log } from "../../../log";
import type { DocumentFormat } from "./formats";
import type { ParsedDocument } from "./types";

/**
 * Reads uploaded documents in helper processes (parse-child.mjs), never on the server's main thread,
 * each within a time and memory budget: a file that takes too long or needs too much memory kills its
 * process and fails alone with a plain message; the next file gets a fresh process. Two processes (a
 * ChildPool), so a hostile file held up to its deadline does not stop every other collection's uploads meanwhile.
 *
 * Processes and not worker threads, for the reasons lib/backends/child-channel.ts gives: a worker that
 * reaches its heap limit can take the whole server with it (marked did, on 8,000 nested lists).
 */

export interface ParseBudget {
  /** Wall-clock time to read one file. */
  timeoutMs: number;
  /** The helper's JavaScript heap (V8's own cap: past it the helper dies, not the server). */
  heapMb: number;
  /** Resident memory of the helper while it reads; past it the helper is killed. */
  memoryMb: number;
}

export const DEFAULT_PARSE_BUDGET: ParseBudget = { timeoutMs: 60_000, heapMb: 512, memoryMb: 1_024 };

const POOL_SIZE = 2;
/** Loading tsx, cheerio and marked on a busy machine: not the file's time. */
const START_TIMEOUT_MS = 60_000;

/** An uploaded file that could not be read: the message names it and says why; nothing else in its batch is lost. */
export class UnreadableUploadError extends AppError {
  constructor(
    readonly fileName: string,
    /** What is wrong with the file, without its name: lists show it as `${fileName}: ${reason}`. */
    readonly reason: string,
  ) {
    super("VALIDATION", `${fileName}: ${reason}`);
  }
}

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const metadata = z.record(z.string(), z.union([scalar, z.array(scalar)]));
const parsedDocument = z.object({
  title: z.string(),
  blocks: z.array(
    z.object({
      text: z.string(),
      section: z.string().optional(),
      location: z.record(z.string(), scalar).optional(),
      sentences: z.array(z.string()).optional(),
    }),
  ),
  tables: z.array(
    z.object({
      caption: z.string().optional(),
      section: z.string().optional(),
      header: z.array(z.string()),
      rows: z.array(z.array(scalar)),
      beforeBlock: z.number(),
      metadata: metadata.optional(),
    }),
  ),
  metadata: metadata.optional(),
});
const childReply = z.union([
  z.object({ ok: z.literal(true), format: z.enum(["txt", "md", "html", "pdf", "csv", "json"]), parsed: parsedDocument }),
  z.object({ ok: z.literal(false), error: z.string(), unreadable: z.boolean(), tooDeep: z.boolean().optional() }),
]);

export interface UploadToParse {
  name: string;
  bytes: Buffer;
  mediaType?: string;
}

const seconds = (ms: number) => (ms / 1000).toLocaleString("en", { maximumFractionDigits: 1 });

export class DocumentParsePool {
  private readonly pool: ChildPool;

  constructor(
    private readonly budget: ParseBudget = DEFAULT_PARSE_BUDGET,
    size = POOL_SIZE,
  ) {
    this.pool = new ChildPool({
      size,
      helper: () => this.helperOptions(),
      startFailure: (e) => {
        log.error({ err: e }, "the document reader could not start");
        return new AppError("UNAVAILABLE", "Documents cannot be read right now (the document reader did not start). Try again shortly.");
      },
    });
  }

  /** Reads one file in a helper process; a file that cannot be read rejects with UnreadableUploadError. */
  parse(file: UploadToParse): Promise<{ format: DocumentFormat; parsed: ParsedDocument }> {
    return this.pool.use(({ channel, retire }) => this.read(file, channel, retire));
  }

  /** Stops the helpers (tests, shutdown); a later parse starts new ones. */
  close(): void {
    this.pool.close();
  }

  private async read(
    file: UploadToParse,
    channel: ChildChannel,
    retire: () => void,
  ): Promise<{ format: DocumentFormat; parsed: ParsedDocument }> {
    const outcome = await channel.call(
      { type: "parse", name: file.name, bytes: file.bytes, mediaType: file.mediaType },
      { timeoutMs: this.budget.timeoutMs },
    );
    switch (outcome.kind) {
      case "reply": {
        const reply = childReply.safeParse(outcome.reply);
        if (!reply.success) {
          retire();
          log.error({ issues: reply.error.issues.slice(0, 3), file: file.name }, "the document reader sent an unexpected reply");
          throw new UnreadableUploadError(file.name, "could not be read (the document reader failed on it)");
        }
        if (reply.data.ok) {
          // A reader grown large by one file is replaced rather than kept for the next.
          const rss = channel.pid ? residentMb(channel.pid) : null;
          if (rss !== null && rss > this.budget.memoryMb * 0.6) retire();
          return { format: reply.data.format, parsed: reply.data.parsed as ParsedDocument };
        }
        // Work a failed parse left behind (pdfjs still decoding a stream) must not slow the next file.
        retire();
        if (reply.data.tooDeep) throw new UnreadableUploadError(file.name, "is nested too deeply to read");
        if (reply.data.unreadable) throw new UnreadableUploadError(file.name, reply.data.error);
        log.warn({ detail: reply.data.error, file: file.name }, "the document reader failed on a file");
        throw new UnreadableUploadError(file.name, "could not be read (the document reader failed on it)");
      }
      case "timeout":
        throw new UnreadableUploadError(
          file.name,
          `took longer than ${seconds(this.budget.timeoutMs)} s to read, so reading it was stopped`,
        );
      case "memory":
        throw new UnreadableUploadError(
          file.name,
          `needed more than ${this.budget.memoryMb.toLocaleString("en")} MB of memory to read, so reading it was stopped`,
        );
      case "crashed":
        log.warn({ detail: channel.diagnostics, reason: outcome.message, file: file.name }, "the document reader stopped on a file");
        throw new UnreadableUploadError(
          file.name,
          `needed more than the reader's ${this.budget.heapMb.toLocaleString("en")} MB of memory (or stopped on it), so it was not read`,
        );
      case "aborted":
        throw new Error("aborted");
    }
  }

  private helperOptions(): ChildChannelOptions {
    return {
      file: helperFilePath(["lib", "ingest", "documents", "parsers"], "parse-child.mjs", import.meta.url),
      label: "the document reader",
      execArgv: ["--import", "tsx", `--max-old-space-size=${this.budget.heapMb}`],
      memoryLimitMb: this.budget.memoryMb,
      startTimeoutMs: START_TIMEOUT_MS,
    };
  }
}

/** One pool per process (a production bundle may hold several copies of this module). */
const globalForPool = globalThis as unknown as { __mosaicDocumentParsePool?: DocumentParsePool };
export function documentParsePool(): DocumentParsePool {
  globalForPool.__mosaicDocumentParsePool ??= new DocumentParsePool();
  return globalForPool.__mosaicDocumentParsePool;
}
