-- CreateIndex
CREATE INDEX "EntityLabel_normalized_pattern_idx" ON "EntityLabel"("normalized" text_pattern_ops);
