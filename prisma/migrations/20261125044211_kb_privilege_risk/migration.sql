-- AlterTable
ALTER TABLE "KnowledgeBase" ADD COLUMN     "privilegeRisks" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "riskAcceptedAt" TIMESTAMP(3),
ADD COLUMN     "riskAcceptedBy" TEXT;
