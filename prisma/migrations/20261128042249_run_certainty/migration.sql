-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "certainty" TEXT;

-- Runs stored before this column: the answer's certainty is in the stored outcome.
UPDATE "Run" SET "certainty" = "result"->'answer'->>'certainty' WHERE "result" IS NOT NULL AND "result"->'answer'->>'certainty' IS NOT NULL;
