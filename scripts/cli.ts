import { EnvError } from "../lib/env";
import { DatabaseLockedError } from "../lib/db/pglite-lock";

/** Runs a command-line task: known errors become one clear message and exit code 1, never a stack trace. */
export async function runCli(task: () => Promise<void>): Promise<void> {
  try {
    await task();
  } catch (e) {
    if (e instanceof EnvError || e instanceof DatabaseLockedError) {
      console.error(e.message);
    } else {
      console.error(`Failed: ${(e as Error).message}`);
      if (process.env.DEBUG) console.error(e);
    }
    process.exitCode = 1;
  }
}
