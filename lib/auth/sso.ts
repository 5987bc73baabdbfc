/**
 * Single sign-on facts shared by the server and the sign-in page (no server-only imports): the
 * provider's id and the messages for the error codes a refused single sign-on comes back with.
 */

export const OIDC_PROVIDER_ID = "oidc";

export function oidcConfigured(env: { OIDC_ISSUER?: string; OIDC_CLIENT_ID?: string; OIDC_CLIENT_SECRET?: string }): boolean {
  return !!(env.OIDC_ISSUER && env.OIDC_CLIENT_ID && env.OIDC_CLIENT_SECRET);
}

const REASON_CODES = { "no-email": "SsoNoEmail", deactivated: "SsoDeactivated", "email-taken": "SsoEmailTaken" } as const;

export function ssoErrorCode(reason: keyof typeof REASON_CODES): string {
  return REASON_CODES[reason];
}

/** The sign-in page's words for next-auth's and Mosaic's single sign-on error codes. */
export const SSO_ERROR_MESSAGES: Record<string, string> = {
  OAuthCallback:
    "Single sign-on was refused: the identity provider's answer could not be verified (it belonged to another sign-in attempt, came from a different issuer, or expired). Start again with the button below; if it keeps happening, ask your administrator to check OIDC_ISSUER.",
  OAuthSignin: "Could not reach the identity provider to start single sign-on. Try again in a moment, or ask your administrator.",
  OAuthCreateAccount: "Single sign-on could not create your account. Ask your administrator.",
  Callback: "Single sign-on did not complete. Start again with the button below.",
  AccessDenied: "Single sign-on was refused.",
  SsoNoEmail: "Your identity provider did not send an email address, which Mosaic needs. Ask your administrator to add the email scope.",
  SsoDeactivated: "Your Mosaic account is deactivated. Ask an administrator to reactivate it.",
  SsoEmailTaken:
    "A Mosaic account with your email already exists and your identity provider has not verified that email, so it was not linked. Ask an administrator.",
};
