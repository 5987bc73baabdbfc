import type { NextConfig } from "next";
import { PHASE_PRODUCTION_BUILD } from "next/constants";
import { SERVER_ACTION_MAX_BYTES } from "./lib/http/limits";
import { API_CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from "./lib/http/security-headers";

// No usage reports to Vercel, and no notice about them in the build output: Next.js reads this variable
// after loading this file (build, start and dev alike), so nobody has to set it.
process.env.NEXT_TELEMETRY_DISABLED ??= "1";

const nextConfig = (phase: string): NextConfig => ({
  // Native, wasm and file-reading packages are loaded by Node at run time, not bundled.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/schema-engine-wasm",
    "@prisma/adapter-pg",
    "@node-rs/argon2",
    "pg",
    "pino",
    "better-sqlite3",
    // Reads its Hunspell files next to itself at import (import.meta.url): kept out of the bundle.
    "dictionary-en",
    "nspell",
    "sqlite-vec",
    "oxigraph",
    "neo4j-driver",
    "pdfjs-dist",
    // The model runtime: a native binding and a worker pool whose threads load workers/inference-worker.mjs from disk.
    "onnxruntime-node",
    "piscina",
    "@huggingface/tokenizers",
  ],
  // forbidden() renders app/forbidden.tsx with HTTP 403 for signed-in users without the role. Next.js
  // 16.4 still ships forbidden() as an experiment, so the build lists "authInterrupts" under
  // "Experiments"; without it a page could only redirect or show 404, and a signed-in user who lacks the
  // role is told plainly that the page exists but is not theirs.
  experimental: {
    authInterrupts: true,
    // A production build writes no source maps and leaves the server code unminified: the maps were a
    // sixth of a first `npm start` on 2 cores (build 197 s with them, 163 s without, measured side by
    // side at load 1.5–2; README "First run"), and unminified server code keeps its function and file
    // names, so a server stack trace stays readable without them. The browser's code is still
    // minified; `next dev` keeps its source maps.
    ...(phase === PHASE_PRODUCTION_BUILD ? { turbopackSourceMaps: false, serverMinification: false } : {}),
    // Server actions (issue 31): Next.js counts an action's body while it streams and stops at this limit
    // (413); it does not look at Content-Length, so scripts/server.ts refuses a larger declared page body
    // at the door. Same-origin: Next.js compares Origin with Host; proxy.ts adds Sec-Fetch-Site.
    serverActions: { bodySizeLimit: SERVER_ACTION_MAX_BYTES },
    // proxy.ts never reads bodies, but Next.js buffers a copy of each page request's body for it: no more than an action may send.
    proxyClientMaxBodySize: SERVER_ACTION_MAX_BYTES,
  },
  // The build does not type-check again: `npm run typecheck` does (CI runs it before the tests, and so
  // should anyone changing the code), and on a first `npm start` the check only repeated what CI had
  // checked on the same commit, for a third of the build's time (README "First run").
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
  outputFileTracingRoot: process.cwd(),
  // Pages get their Content-Security-Policy (with a per-request nonce) and HSTS from proxy.ts.
  async headers() {
    return [
      { source: "/:path*", headers: SECURITY_HEADERS },
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: API_CONTENT_SECURITY_POLICY }] },
    ];
  },
});

export default nextConfig;
