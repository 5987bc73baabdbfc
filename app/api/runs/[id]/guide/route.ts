import { z } from "zod";
import { db } from "@/lib/db/client";
import { withAuthRoute } from "@/lib/http/route";
import { saveRunAsGuide } from "@/lib/guides/from-run";

const bodySchema = z.object({
  question: z.string().trim().min(1).max(2000).optional(),
  notes: z.string().max(4000).optional(),
  /** The right answer when the run got it wrong: stored as a correction for the critic. */
  correction: z.string().trim().min(1).max(2000).optional(),
});

// "Save this run as a guide" (analysts and admins).
export const POST = withAuthRoute<typeof bodySchema, { id: string }>(
  { name: "runs.saveAsGuide", roles: ["ADMIN", "ANALYST"], input: bodySchema },
  async ({ user, input, params }) => Response.json(await saveRunAsGuide(await db(), user, params.id, input), { status: 201 }),
);
