import { z } from "zod";
import { PASSWORD_MIN_LENGTH } from "../auth/password-policy";

const role = z.enum(["ADMIN", "ANALYST", "USER"], { error: "Choose a role." });
const groupIds = z.array(z.string().min(1)).max(100).default([]);

export const createUserSchema = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email("Enter a valid email address.")),
  name: z.string().trim().min(1, "Enter a name.").max(120, "Keep the name under 120 characters."),
  password: z
    .string()
    .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters.`)
    .max(256, "Keep the password under 256 characters."),
  role,
  groupIds,
});
export type CreateUserInput = z.input<typeof createUserSchema>;

export const updateUserSchema = z.object({
  id: z.string().min(1),
  role,
  active: z.boolean(),
  groupIds,
});
export type UpdateUserInput = z.input<typeof updateUserSchema>;

export const setPasswordSchema = z.object({
  id: z.string().min(1),
  password: createUserSchema.shape.password,
});

export const createGroupSchema = z.object({
  name: z.string().trim().min(1, "Enter a group name.").max(80, "Keep the name under 80 characters."),
  description: z.string().trim().max(500).default(""),
});
export type CreateGroupInput = z.input<typeof createGroupSchema>;
