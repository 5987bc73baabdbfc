-- AlterTable
ALTER TABLE "KnowledgeBase" ADD COLUMN     "descriptorCompact" TEXT,
ADD COLUMN     "entityCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "indexedAt" TIMESTAMP(3),
ADD COLUMN     "origin" TEXT NOT NULL DEFAULT 'user',
ADD COLUMN     "stats" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "SourceObject" ADD COLUMN     "refreshError" TEXT,
ADD COLUMN     "snapshot" JSONB;

-- CreateTable
CREATE TABLE "EntityLabel" (
    "id" TEXT NOT NULL,
    "kbId" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "normalized" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "sourceObject" TEXT,

    CONSTRAINT "EntityLabel_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "EntityLabel_normalized_idx" ON "EntityLabel"("normalized");

-- CreateIndex
CREATE INDEX "EntityLabel_kbId_idx" ON "EntityLabel"("kbId");

-- CreateIndex
CREATE INDEX "KnowledgeBase_origin_idx" ON "KnowledgeBase"("origin");

-- AddForeignKey
ALTER TABLE "EntityLabel" ADD CONSTRAINT "EntityLabel_kbId_fkey" FOREIGN KEY ("kbId") REFERENCES "KnowledgeBase"("id") ON DELETE CASCADE ON UPDATE CASCADE;
