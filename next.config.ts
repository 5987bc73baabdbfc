import type { NextConfig } from "next";

const nextConfig: NextConfig = {
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
    "sqlite-vec",
    "oxigraph",
    "neo4j-driver",
    "pdfjs-dist",
    // The model runtime: a native binding and a worker pool whose threads load workers/inference-worker.mjs from disk.
    "onnxruntime-node",
    "piscina",
    "@huggingface/tokenizers",
  ],
  // forbidden() renders app/forbidden.tsx with HTTP 403 for signed-in users without the role.
  experimental: { authInterrupts: true },
  poweredByHeader: false,
  outputFileTracingRoot: process.cwd(),
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
    ];
  },
};

export default nextConfig;
