import type { CurrentUser } from "../auth/session";
import { loadEnv } from "../env";
import { requestClientAddress } from "../http/client-address";
import type { AuditActor } from "./audit";

/** The actor of a route handler's request: the signed-in user and the client's address (lib/http). */
export function requestActor(user: Pick<CurrentUser, "id" | "email">, headers: Headers): AuditActor {
  return { actorId: user.id, actorEmail: user.email, address: requestClientAddress(headers, loadEnv().TRUST_PROXY) };
}
