import { z } from "zod";

export const feedbackQueueSchema = z.object({
  status: z.enum(["OPEN", "RESOLVED"]).default("OPEN"),
  take: z.number().int().min(1).max(200).default(100),
});

export const feedbackIdSchema = z.object({ feedbackId: z.string().min(1) });

export const linkFeedbackSchema = z.object({
  feedbackId: z.string().min(1),
  guideId: z.string().min(1, "Choose the guide that fixes this answer."),
});
