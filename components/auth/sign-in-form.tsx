"use client";

import { signIn } from "next-auth/react";
import { type FormEvent, useState } from "react";
import { signInSchema } from "@/lib/auth/sign-in.validation";
import { OIDC_PROVIDER_ID, SSO_ERROR_MESSAGES } from "@/lib/auth/sso";
import { safeCallbackPath } from "@/lib/http/safe-redirect";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, TextInput } from "../ui/field";
import { count } from "@/lib/format/count";

const NEXT_AUTH_ERRORS: Record<string, string> = {
  CredentialsSignin: "Wrong email or password.",
  SessionRequired: "Sign in to continue.",
};

/** "TooManyAttempts:42" (lib/auth/sign-in-throttle.ts) → how long to wait, in words. */
function tooManyAttempts(code: string): string | undefined {
  const m = /^TooManyAttempts(?::(\d+))?$/.exec(code);
  if (!m) return undefined;
  const seconds = Number(m[1] ?? 60);
  const wait = seconds < 90 ? count(seconds, "second") : `${Math.ceil(seconds / 60)} minutes`;
  return `Too many failed sign-in attempts. Try again in ${wait}; the right password works then.`;
}

function errorMessage(code: string | undefined, fallback: string): string {
  if (!code) return fallback;
  return NEXT_AUTH_ERRORS[code] ?? SSO_ERROR_MESSAGES[code] ?? tooManyAttempts(code) ?? fallback;
}

export function SignInForm({
  callbackUrl,
  initialError,
  sso = null,
  passwordForm = true,
}: {
  callbackUrl: string;
  initialError?: string;
  /** Single sign-on, when configured: its provider's name for the button. */
  sso?: { name: string } | null;
  /** False under OIDC_ONLY: no email and password fields. */
  passwordForm?: boolean;
}) {
  const [fieldErrors, setFieldErrors] = useState<{ email?: string; password?: string }>({});
  const [error, setError] = useState<string | undefined>(
    initialError ? errorMessage(initialError, "Sign-in failed. Try again.") : undefined,
  );
  const [pending, setPending] = useState(false);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const parsed = signInSchema.safeParse({ email: form.get("email"), password: form.get("password") });
    if (!parsed.success) {
      const errs: { email?: string; password?: string } = {};
      for (const issue of parsed.error.issues) errs[issue.path[0] as "email" | "password"] ??= issue.message;
      setFieldErrors(errs);
      setError(undefined);
      return;
    }
    setFieldErrors({});
    setPending(true);
    try {
      const res = await signIn("credentials", { ...parsed.data, redirect: false });
      if (!res || res.error) {
        setError(errorMessage(res?.error ?? undefined, "Sign-in is unavailable right now. Try again in a moment."));
        return;
      }
      // A full navigation, so every server component renders with the new session cookie.
      // (The page sent a checked path; checked again here, so the form alone can never leave the origin.)
      window.location.assign(safeCallbackPath(callbackUrl));
    } catch {
      setError("Could not reach the server. Check your connection and try again.");
    } finally {
      setPending(false);
    }
  }

  const ssoButton = sso && (
    <Button
      type="button"
      variant={passwordForm ? "secondary" : undefined}
      className="w-full"
      disabled={pending}
      onClick={() => {
        setPending(true);
        // A full redirect to the identity provider and back; next-auth keeps state and PKCE in cookies.
        void signIn(OIDC_PROVIDER_ID, { callbackUrl: safeCallbackPath(callbackUrl) });
      }}
    >
      Sign in with {sso.name}
    </Button>
  );

  if (!passwordForm) {
    return (
      <div className="space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm" role="form" aria-label="Sign in">
        {error && <Alert tone="error">{error}</Alert>}
        {ssoButton}
      </div>
    );
  }

  return (
    <form
      onSubmit={onSubmit}
      noValidate
      className="space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm"
      aria-label="Sign in"
    >
      {error && <Alert tone="error">{error}</Alert>}
      <Field id="email" label="Email" error={fieldErrors.email}>
        <TextInput id="email" name="email" type="email" autoComplete="username" required autoFocus invalid={!!fieldErrors.email} />
      </Field>
      <Field id="password" label="Password" error={fieldErrors.password}>
        <TextInput
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          invalid={!!fieldErrors.password}
        />
      </Field>
      <Button type="submit" className="w-full" disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </Button>
      {ssoButton && (
        <>
          <p className="text-center text-xs text-slate-500">or</p>
          {ssoButton}
        </>
      )}
    </form>
  );
}
