/**
 * Slows password guessing: after MAX_FAILURES failed sign-ins for one email within WINDOW_MS, further
 * attempts for that email are refused until the window passes. In-process memory is enough for the
 * single-server default; a multi-server deployment would move this to the shared database.
 */
const MAX_FAILURES = 10;
const WINDOW_MS = 15 * 60 * 1000;

interface Entry {
  failures: number;
  windowStart: number;
}

export class SignInThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxFailures = MAX_FAILURES,
    private readonly windowMs = WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  private entry(key: string): Entry | undefined {
    const e = this.entries.get(key);
    if (e && this.now() - e.windowStart > this.windowMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  isBlocked(email: string): boolean {
    return (this.entry(email.toLowerCase())?.failures ?? 0) >= this.maxFailures;
  }

  recordFailure(email: string): void {
    const key = email.toLowerCase();
    const e = this.entry(key);
    if (e) e.failures++;
    else this.entries.set(key, { failures: 1, windowStart: this.now() });
  }

  recordSuccess(email: string): void {
    this.entries.delete(email.toLowerCase());
  }
}

const globalForThrottle = globalThis as unknown as { __mosaicSignInThrottle?: SignInThrottle };
export function signInThrottle(): SignInThrottle {
  globalForThrottle.__mosaicSignInThrottle ??= new SignInThrottle();
  return globalForThrottle.__mosaicSignInThrottle;
}

/** The error code next-auth passes back to the sign-in form. */
export const TOO_MANY_ATTEMPTS = "TooManyAttempts";
