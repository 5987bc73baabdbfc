import type { Role } from "../db/generated/enums";

export const ROLES = ["ADMIN", "ANALYST", "USER"] as const satisfies readonly Role[];

export const ROLE_LABELS: Record<Role, string> = {
  ADMIN: "Admin",
  ANALYST: "Analyst",
  USER: "Business user",
};

export function hasRole(role: Role, allowed: readonly Role[] | undefined): boolean {
  return !allowed || allowed.includes(role);
}
