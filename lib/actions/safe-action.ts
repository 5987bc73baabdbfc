import "server-only";
import { headers } from "next/headers";
import { createSafeActionClient } from "next-safe-action";
import type { AuditActor } from "../audit/audit";
import { z } from "zod";
import { getCurrentUser } from "../auth/session";
import { loadEnv } from "../env";
import { AppError, type ClientError, toClientError } from "../errors";
import { requestClientAddress } from "../http/client-address";

const metadataSchema = z.object({
  /** Logged with unexpected errors. */
  name: z.string(),
  /** Roles allowed to call the action; omitted = any signed-in user. */
  roles: z.array(z.enum(["ADMIN", "ANALYST", "USER"])).optional(),
});

/**
 * The one authenticated server-action client: metadata → zod input schema → handler. The middleware
 * checks the session and the role on every call; errors reach the browser only as ClientError.
 */
export const actionClient = createSafeActionClient({
  defineMetadataSchema: () => metadataSchema,
  handleServerError: (error, { metadata }): ClientError => toClientError(error, { action: metadata?.name }),
});

/** The client's address (lib/http/client-address.ts); null when called outside a request (a test calling the action directly). */
async function clientAddress(): Promise<string | null> {
  let h: Headers;
  try {
    h = await headers();
  } catch {
    return null;
  }
  return requestClientAddress(h, loadEnv().TRUST_PROXY);
}

export const authActionClient = actionClient.use(async ({ next, metadata }) => {
  const user = await getCurrentUser();
  if (!user) throw new AppError("UNAUTHENTICATED", "Your session has ended. Sign in again.");
  if (metadata.roles && !metadata.roles.includes(user.role)) {
    throw new AppError("FORBIDDEN", "You do not have permission to do this.");
  }
  // Who acts and from where, for the audit records the action writes (lib/audit).
  const actor: AuditActor = { actorId: user.id, actorEmail: user.email, address: await clientAddress() };
  return next({ ctx: { user, actor } });
});
