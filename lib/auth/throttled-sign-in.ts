import type { PrismaClient } from "../db/generated/client";
import { authenticate } from "./authenticate";
import type { SignInThrottle } from "./sign-in-throttle";

export type SignInOutcome =
  | { ok: true; user: NonNullable<Awaited<ReturnType<typeof authenticate>>> }
  | { ok: false; reason: "credentials" }
  | { ok: false; reason: "throttled"; retryAfterMs: number };

/**
 * One sign-in attempt under the throttle: refused without checking the password while a delay runs
 * (so a flood costs no password hashing either), otherwise checked, and the throttle told the outcome.
 */
export async function throttledSignIn(
  prisma: PrismaClient,
  throttle: SignInThrottle,
  email: string,
  password: string,
  address: string,
): Promise<SignInOutcome> {
  const admission = await throttle.admit(email, address);
  if (!admission.ok) return { ok: false, reason: "throttled", retryAfterMs: admission.retryAfterMs };
  const user = await authenticate(prisma, email, password);
  if (!user) {
    await throttle.recordFailure(email, address);
    return { ok: false, reason: "credentials" };
  }
  await throttle.recordSuccess(email, address);
  return { ok: true, user };
}
