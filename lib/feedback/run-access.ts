import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import { Prisma, type PrismaClient } from "../db/generated/client";

/**
 * Runs record their knowledge sources in the stored result (candidates, queries, evidence) and in
 * `requestedKbIds`; there is no relation to filter on. A run is within someone's access when none of
 * those names a KB they may not use: the KBs outside their access are listed (a small table) and every
 * JSON array is tested for containing one, inside the query, so paging and counts stay correct.
 */
export async function runKbScopeWhere(prisma: PrismaClient, user: AccessSubject): Promise<Prisma.RunWhereInput> {
  if (user.role === "ADMIN") return {};
  const hidden = await prisma.knowledgeBase.findMany({ where: { NOT: kbAccessWhere(user) }, select: { id: true } });
  if (!hidden.length) return {};
  // `result @> …` is NULL for a run without a result; pairing it with "result is not null" keeps such
  // runs from being dropped by NOT(NULL).
  const inResult = (path: string[], element: Prisma.InputJsonValue): Prisma.RunWhereInput => ({
    AND: [{ NOT: { result: { equals: Prisma.DbNull } } }, { result: { path, array_contains: [element] } }],
  });
  return {
    NOT: {
      OR: hidden.flatMap(({ id }) => [
        { requestedKbIds: { has: id } },
        inResult(["candidates"], { kbId: id }),
        inResult(["queries"], { kbId: id }),
        inResult(["evidence"], { piece: { provenance: { kb: id } } }),
      ]),
    },
  };
}

/**
 * Which runs someone may read: a business user their own; an analyst anyone's (reviewing reports and
 * curating guides means reading other people's runs); both only over knowledge bases they may still
 * use, so losing access to a KB hides its evidence in old runs too. Admins read all.
 */
export async function runReadWhere(prisma: PrismaClient, user: AccessSubject): Promise<Prisma.RunWhereInput> {
  if (user.role === "ADMIN") return {};
  const scope = await runKbScopeWhere(prisma, user);
  return user.role === "USER" ? { AND: [{ userId: user.id }, scope] } : scope;
}
