import type { Role } from "../db/generated/enums";

/**
 * How an identity provider's claims become a Mosaic role and groups (issue 29, docs/SSO.md). Pure
 * functions: the sign-in (oidc-provision.ts) applies them on every single sign-on, so a changed claim
 * changes the role and groups at the next sign-in.
 */

export interface ClaimMapping {
  rolesClaim: string;
  groupsClaim: string;
  /** Lower-cased claim value → role. */
  roleMap: Map<string, Role>;
  /** Lower-cased claim value → Mosaic group name; null: a claim value names the group itself. */
  groupMap: Map<string, string> | null;
}

/** The least role, given when no claim value maps to a role (missing claim, unknown values): never more. */
export const LEAST_ROLE: Role = "USER";

const ROLE_RANK: Record<Role, number> = { USER: 0, ANALYST: 1, ADMIN: 2 };

const DEFAULT_ROLE_MAP = new Map<string, Role>([
  ["admin", "ADMIN"],
  ["analyst", "ANALYST"],
  ["user", "USER"],
]);

function pairs(spec: string | undefined): [string, string][] {
  if (!spec?.trim()) return [];
  return spec.split(",").map((pair) => {
    const [k, v] = pair.split("=");
    return [k.trim().toLowerCase(), v.trim()];
  });
}

export function claimMapping(env: {
  OIDC_ROLES_CLAIM: string;
  OIDC_GROUPS_CLAIM: string;
  OIDC_ROLE_MAP?: string;
  OIDC_GROUP_MAP?: string;
}): ClaimMapping {
  const rolePairs = pairs(env.OIDC_ROLE_MAP);
  const groupPairs = pairs(env.OIDC_GROUP_MAP);
  return {
    rolesClaim: env.OIDC_ROLES_CLAIM,
    groupsClaim: env.OIDC_GROUPS_CLAIM,
    roleMap: rolePairs.length ? new Map(rolePairs.map(([k, v]) => [k, v.toUpperCase() as Role])) : DEFAULT_ROLE_MAP,
    groupMap: groupPairs.length ? new Map(groupPairs) : null,
  };
}

/** A claim's values: a string, a list of strings, or (dotted path) a nested one; anything else is none. */
export function claimValues(claims: Record<string, unknown>, path: string): string[] {
  let value: unknown = path in claims ? claims[path] : undefined;
  if (value === undefined) {
    value = path
      .split(".")
      .reduce<unknown>((o, key) => (o && typeof o === "object" ? (o as Record<string, unknown>)[key] : undefined), claims);
  }
  if (typeof value === "string") return value.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}

/** The highest role any claim value maps to; LEAST_ROLE when none does. */
export function mappedRole(claims: Record<string, unknown>, mapping: ClaimMapping): { role: Role; matched: string[] } {
  let role: Role = LEAST_ROLE;
  const matched: string[] = [];
  for (const v of claimValues(claims, mapping.rolesClaim)) {
    const r = mapping.roleMap.get(v.toLowerCase());
    if (!r) continue;
    matched.push(v);
    if (ROLE_RANK[r] > ROLE_RANK[role]) role = r;
  }
  return { role, matched };
}

/** The Mosaic group names the claim values map to (lower-cased for matching); unknown values are dropped. */
export function mappedGroupNames(claims: Record<string, unknown>, mapping: ClaimMapping): string[] {
  const names = claimValues(claims, mapping.groupsClaim).map((v) => (mapping.groupMap ? mapping.groupMap.get(v.toLowerCase()) : v));
  return [...new Set(names.filter((n): n is string => !!n).map((n) => n.toLowerCase()))];
}
