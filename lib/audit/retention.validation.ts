import { z } from "zod";

/** Shared by Settings' audit-log form (browser) and its server action: no server imports here. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

export const auditRetentionInputSchema = z.object({
  days: z
    .number({ error: "Enter a whole number of days from 7 to 3650." })
    .int("Enter a whole number of days.")
    .min(7, "Keep records at least 7 days.")
    .max(3650, "At most 3650 days (ten years)."),
});
export type AuditRetentionInput = z.infer<typeof auditRetentionInputSchema>;
