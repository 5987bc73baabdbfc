/**
 * Makes every `process.exit` asked for while `cleanup` runs wait until it has finished, then exits
 * with the first code asked for (or `code`).
 *
 * Why: Next.js handles SIGINT and SIGTERM itself, and ends the process as soon as its HTTP server has
 * closed, while Mosaic's own shutdown may still be waiting for a background job's embedding batch. A
 * process that exits while onnxruntime runs a batch on a worker thread aborts ("terminate called after
 * throwing an instance of 'Napi::Error'": the run's completion lands on a torn-down thread), and an
 * embedded database that is not closed is not flushed. Next.js's exit comes after its requests have
 * finished, so holding it keeps both: requests drain, then models and database close, then the process ends.
 */
export async function exitAfter(cleanup: Promise<unknown>, code = 0): Promise<never> {
  const exit = process.exit.bind(process);
  let asked: number | undefined;
  process.exit = ((c?: number | string | null) => {
    asked ??= typeof c === "number" ? c : Number(c ?? 0) || 0;
    // Never returns to the caller, as the real process.exit never does.
    return new Promise<never>(() => undefined) as never;
  }) as typeof process.exit;
  try {
    await cleanup;
  } finally {
    exit(asked ?? code);
  }
  return new Promise<never>(() => undefined);
}
