import type { AccessSubject } from "../catalog/access";
import type { Prisma } from "../db/generated/client";

/**
 * Which stored runs a person may open, as a Prisma `where`: their own; admins any; analysts also the
 * runs someone gave feedback on (the review queue opens them). What such a run shows is further cut to
 * the viewer's knowledge bases (see redact.ts).
 */
export function runReadableWhere(user: AccessSubject): Prisma.RunWhereInput {
  if (user.role === "ADMIN") return {};
  if (user.role === "ANALYST") return { OR: [{ userId: user.id }, { feedback: { some: {} } }] };
  return { userId: user.id };
}
