-- AlterTable
ALTER TABLE "EntityLabel" ADD COLUMN     "head" TEXT NOT NULL DEFAULT '';

-- CreateIndex
CREATE INDEX "EntityLabel_head_idx" ON "EntityLabel"("head");

-- Backfill: labels indexed before this migration get their first word.
UPDATE "EntityLabel" SET "head" = split_part("normalized", ' ', 1);
