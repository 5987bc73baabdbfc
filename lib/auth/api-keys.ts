import { createHash, randomBytes } from "node:crypto";
import type { PrismaClient } from "../db/generated/client";
import type { Role } from "../db/generated/enums";
import { AppError } from "../errors";
import { API_KEY_LIFETIMES, API_SCOPES, type ApiScope, type CreateApiKeyInput, createApiKeySchema } from "./api-keys.validation";

/**
 * Personal access tokens (issue 29).
 *
 * A token is `mosaic_<prefix>_<secret>`: the prefix (8 characters) is shown in lists so people can tell
 * their keys apart, the secret is 32 random bytes (256 bits). Only the SHA-256 of the whole token is
 * stored. A slow password hash (argon2) is not needed: it defends low-entropy secrets against guessing,
 * and nobody can enumerate 2^256 tokens; a fast hash also lets the lookup be one indexed equality, so
 * checking a key costs no CPU worth measuring. A stolen database copy yields no usable token.
 */
const TOKEN_RE = /^mosaic_([a-z0-9]{8})_([A-Za-z0-9_-]{43})$/;

export function hashApiToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: ApiScope[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  revokedBy: string | null;
  /** "active", "expired" or "revoked", as of now. */
  state: "active" | "expired" | "revoked";
  owner: { id: string; email: string; name: string };
}

const VIEW_SELECT = {
  id: true,
  name: true,
  prefix: true,
  scopes: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
  revokedAt: true,
  revokedBy: true,
  user: { select: { id: true, email: true, name: true } },
} as const;

type ViewRow = {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  revokedBy: string | null;
  user: { id: string; email: string; name: string };
};

function toView(r: ViewRow, now = new Date()): ApiKeyView {
  return {
    id: r.id,
    name: r.name,
    prefix: `mosaic_${r.prefix}`,
    scopes: r.scopes.filter((s): s is ApiScope => (API_SCOPES as readonly string[]).includes(s)),
    createdAt: r.createdAt.toISOString(),
    expiresAt: r.expiresAt?.toISOString() ?? null,
    lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
    revokedAt: r.revokedAt?.toISOString() ?? null,
    revokedBy: r.revokedBy,
    state: r.revokedAt ? "revoked" : r.expiresAt && r.expiresAt <= now ? "expired" : "active",
    owner: r.user,
  };
}

/** Creates a key for `userId`; the token is in the result and nowhere else, ever. */
export async function createApiKey(
  prisma: PrismaClient,
  userId: string,
  raw: CreateApiKeyInput,
  now = new Date(),
): Promise<{ token: string; key: ApiKeyView }> {
  const input = createApiKeySchema.parse(raw);
  const days = API_KEY_LIFETIMES[input.expiresInDays];
  const prefix = randomBytes(6)
    .toString("base64url")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "0")
    .slice(0, 8);
  const token = `mosaic_${prefix}_${randomBytes(32).toString("base64url")}`;
  const row = await prisma.apiKey.create({
    data: {
      userId,
      name: input.name,
      prefix,
      tokenHash: hashApiToken(token),
      scopes: [...new Set(input.scopes)],
      expiresAt: days === null ? null : new Date(now.getTime() + days * 86_400_000),
    },
    select: VIEW_SELECT,
  });
  return { token, key: toView(row, now) };
}

/** One person's keys (their profile page), newest first. */
export async function listOwnApiKeys(prisma: PrismaClient, userId: string): Promise<ApiKeyView[]> {
  const rows = await prisma.apiKey.findMany({ where: { userId }, orderBy: { createdAt: "desc" }, select: VIEW_SELECT });
  return rows.map((r) => toView(r));
}

/** Every key in the workspace (admins). */
export async function listAllApiKeys(prisma: PrismaClient): Promise<ApiKeyView[]> {
  const rows = await prisma.apiKey.findMany({ orderBy: { createdAt: "desc" }, select: VIEW_SELECT, take: 1000 });
  return rows.map((r) => toView(r));
}

/** Revokes a key: its owner may, and admins may revoke anyone's. Revoking twice keeps the first record. */
export async function revokeApiKey(
  prisma: PrismaClient,
  actor: { id: string; email: string; role: Role },
  id: string,
): Promise<ApiKeyView> {
  const key = await prisma.apiKey.findFirst({
    where: actor.role === "ADMIN" ? { id } : { id, userId: actor.id },
    select: { id: true, revokedAt: true },
  });
  if (!key) throw new AppError("NOT_FOUND", "That API key does not exist or is not yours.");
  const row = key.revokedAt
    ? await prisma.apiKey.findUniqueOrThrow({ where: { id }, select: VIEW_SELECT })
    : await prisma.apiKey.update({ where: { id }, data: { revokedAt: new Date(), revokedBy: actor.email }, select: VIEW_SELECT });
  return toView(row);
}

export interface KeyPrincipal {
  keyId: string;
  scopes: ApiScope[];
  user: { id: string; email: string; name: string; role: Role; groupIds: string[] };
}

/**
 * Who a bearer token is: its user, read fresh (role, groups, active) as for a session, and its scopes.
 * Every way a token can fail is 401 with what is wrong, without saying whether another token exists.
 */
export async function authenticateApiToken(prisma: PrismaClient, token: string, now = new Date()): Promise<KeyPrincipal> {
  if (!TOKEN_RE.test(token)) {
    throw new AppError(
      "UNAUTHENTICATED",
      "The bearer token is not a Mosaic API key (they start with mosaic_). Create one on your profile page.",
    );
  }
  const key = await prisma.apiKey.findUnique({
    where: { tokenHash: hashApiToken(token) },
    select: {
      id: true,
      scopes: true,
      expiresAt: true,
      revokedAt: true,
      user: { select: { id: true, email: true, name: true, role: true, active: true, memberships: { select: { groupId: true } } } },
    },
  });
  if (!key) throw new AppError("UNAUTHENTICATED", "This API key is not valid. Check it was copied whole, or create a new one.");
  if (key.revokedAt) throw new AppError("UNAUTHENTICATED", "This API key was revoked. Create a new one on your profile page.");
  if (key.expiresAt && key.expiresAt <= now) {
    throw new AppError(
      "UNAUTHENTICATED",
      `This API key expired on ${key.expiresAt.toISOString().slice(0, 10)}. Create a new one on your profile page.`,
    );
  }
  if (!key.user.active) throw new AppError("UNAUTHENTICATED", "The account this API key belongs to is deactivated.");
  return {
    keyId: key.id,
    scopes: key.scopes.filter((s): s is ApiScope => (API_SCOPES as readonly string[]).includes(s)),
    user: {
      id: key.user.id,
      email: key.user.email,
      name: key.user.name,
      role: key.user.role,
      groupIds: key.user.memberships.map((m) => m.groupId),
    },
  };
}

/** Refuses a key without `scope`, naming it (403: the key is valid, it may not do this). */
export function requireScope(principal: Pick<KeyPrincipal, "scopes">, scope: ApiScope): void {
  if (!principal.scopes.includes(scope)) {
    throw new AppError("FORBIDDEN", `This API key lacks the "${scope}" scope. Create a key with it on your profile page.`, {
      scope: `Missing scope: ${scope}`,
    });
  }
}

/**
 * Refuses a key holding none of `scopes` (403, naming them): for an endpoint whose operations each need
 * one of several scopes (the MCP server, where each tool then checks its own).
 */
export function requireAnyScope(principal: Pick<KeyPrincipal, "scopes">, scopes: readonly ApiScope[]): void {
  if (!scopes.some((s) => principal.scopes.includes(s))) {
    const names = scopes.map((s) => `"${s}"`).join(", ");
    throw new AppError(
      "FORBIDDEN",
      `This API key has none of the scopes this endpoint needs (${names}). Create a key with one on your profile page.`,
      {
        scope: `Missing scope: one of ${scopes.join(", ")}`,
      },
    );
  }
}

/**
 * Requests per key: a token bucket of API_BUCKET_CAPACITY requests refilled at API_BUCKET_REFILL_PER_SECOND,
 * kept in the key's row and spent by one conditional UPDATE, so every app instance draws from the same
 * bucket (as run slots and sign-in throttles are kept in the database) and two requests cannot both take
 * the last token. The cost is one indexed row write per request, which the key lookup already reads.
 */
export const API_BUCKET_CAPACITY = 60;
export const API_BUCKET_REFILL_PER_SECOND = 1;

export async function spendApiRequest(prisma: PrismaClient, keyId: string): Promise<void> {
  const refill = `LEAST(${API_BUCKET_CAPACITY}, "bucketTokens" + EXTRACT(EPOCH FROM (clock_timestamp() - "bucketAt")) * ${API_BUCKET_REFILL_PER_SECOND})`;
  const spent = await prisma.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE "ApiKey" SET "bucketTokens" = ${refill} - 1, "bucketAt" = clock_timestamp(), "lastUsedAt" = clock_timestamp()
     WHERE "id" = $1 AND ${refill} >= 1 RETURNING "id"`,
    keyId,
  );
  if (spent.length) return;
  const rows = await prisma.$queryRawUnsafe<{ tokens: number }[]>(
    `SELECT ${refill}::float8 AS tokens FROM "ApiKey" WHERE "id" = $1`,
    keyId,
  );
  const missing = 1 - Number(rows[0]?.tokens ?? 0);
  const wait = Math.max(1, Math.ceil(missing / API_BUCKET_REFILL_PER_SECOND));
  throw new AppError(
    "RATE_LIMITED",
    `This API key has used its ${API_BUCKET_CAPACITY} requests; one more is allowed every ${1 / API_BUCKET_REFILL_PER_SECOND} s. Try again in ${wait} s.`,
    undefined,
    wait,
  );
}
