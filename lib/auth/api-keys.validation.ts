import { z } from "zod";

/**
 * What an API key may do (issue 29). A key acts as its user (role, groups, knowledge-base access) and,
 * on top of that, only within its scopes: a scope never grants what the user's role does not.
 */
export const API_SCOPES = ["ask", "runs:read", "kbs:read", "kbs:write", "guides:write", "admin"] as const;
export type ApiScope = (typeof API_SCOPES)[number];

export const API_SCOPE_LABELS: Record<ApiScope, string> = {
  ask: "Ask questions",
  "runs:read": "Read runs, their evidence and evaluation reports",
  "kbs:read": "List knowledge bases and their health; export guides (analysts and admins)",
  "kbs:write": "Register and refresh knowledge bases (admins)",
  "guides:write": "Import and edit extraction guides (analysts and admins)",
  admin: "Admin endpoints: list and revoke anyone's API keys (admins)",
};

/** How long a new key lasts; "never" is allowed but not the default. */
export const API_KEY_LIFETIMES = { "30": 30, "90": 90, "365": 365, never: null } as const;

export const createApiKeySchema = z.object({
  name: z.string().trim().min(1, "Name the key, e.g. the script that uses it.").max(80, "Keep the name under 80 characters."),
  scopes: z.array(z.enum(API_SCOPES)).min(1, "Choose at least one scope.").max(API_SCOPES.length),
  expiresInDays: z.enum(["30", "90", "365", "never"]).default("90"),
});
export type CreateApiKeyInput = z.input<typeof createApiKeySchema>;

export const revokeApiKeySchema = z.object({ id: z.string().trim().min(1).max(64) });
