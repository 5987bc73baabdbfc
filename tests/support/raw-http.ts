import http from "node:http";

/**
 * Plain HTTP/1.1 requests for what fetch cannot send: a Content-Length that promises more than is sent,
 * a chunked body that never ends, and a chosen source address on the loopback range (127.0.0.0/8 is
 * all this machine's), so the server sees distinct clients without anyone writing X-Forwarded-For.
 */

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Body bytes written before the server answered or closed the connection. */
  sentBytes: number;
  ms: number;
}

export interface RawRequestOptions {
  method: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /**
   * Stream this many bytes of filler after `body` (JSON-ish spaces), declared in Content-Length when
   * `declare` is set, chunked otherwise, stopping as soon as the server answers.
   */
  stream?: { bytes: number; declare: boolean };
  /** Source address (127.x.y.z); the URL's host is then dialled as 127.0.0.1. */
  from?: string;
  timeoutMs?: number;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x20);

export function rawRequest(url: string, opts: RawRequestOptions): Promise<RawAnswer> {
  const target = new URL(url);
  if (opts.from && target.hostname === "localhost") target.hostname = "127.0.0.1";
  const started = performance.now();
  const head = typeof opts.body === "string" ? Buffer.from(opts.body) : (opts.body ?? Buffer.alloc(0));
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.stream?.declare) headers["content-length"] = String(head.length + opts.stream.bytes);
  else if (!opts.stream && (head.length > 0 || ["POST", "PUT", "PATCH", "DELETE"].includes(opts.method)))
    headers["content-length"] = String(head.length);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(
      {
        method: opts.method,
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        headers,
        localAddress: opts.from,
        agent: false,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          if (size < 256 * 1024) chunks.push(c);
          size += c.length;
        });
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
            sentBytes: sent,
            ms: performance.now() - started,
          });
        res.on("end", done);
        res.on("error", done);
        res.on("close", done);
      },
    );
    req.setTimeout(opts.timeoutMs ?? 60_000, () => req.destroy(new Error(`no answer in ${opts.timeoutMs ?? 60_000} ms`)));
    req.on("error", (e) => {
      if (answered) return;
      reject(Object.assign(e, { sentBytes: sent }));
    });
    if (head.length) {
      req.write(head);
      sent += head.length;
    }
    if (!opts.stream) return void req.end();
    let left = opts.stream.bytes;
    // One chunk per turn of the event loop, as a real client that also reads its socket: the answer
    // is noticed (and the upload stopped) as soon as it arrives.
    const pump = () => {
      if (answered || req.destroyed) return;
      if (left <= 0) return void req.end();
      const piece = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
      left -= piece.length;
      sent += piece.length;
      if (req.write(piece)) setImmediate(pump);
      else req.once("drain", pump);
    };
    pump();
  });
}
