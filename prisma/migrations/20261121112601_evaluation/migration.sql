-- CreateEnum
CREATE TYPE "EvalReportStatus" AS ENUM ('QUEUED', 'RUNNING', 'DONE', 'FAILED', 'CANCELLED');

-- CreateTable
CREATE TABLE "EvalSuite" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EvalSuite_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvalQuestion" (
    "id" TEXT NOT NULL,
    "suiteId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "question" TEXT NOT NULL,
    "goldAnswers" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "goldKbIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "unanswerable" BOOLEAN NOT NULL DEFAULT false,
    "origin" TEXT NOT NULL,
    "originId" TEXT,

    CONSTRAINT "EvalQuestion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvalReport" (
    "id" TEXT NOT NULL,
    "suite" TEXT NOT NULL,
    "suiteLabel" TEXT NOT NULL,
    "journalKey" TEXT NOT NULL,
    "configInput" JSONB NOT NULL DEFAULT '{}',
    "config" JSONB NOT NULL DEFAULT '{}',
    "seed" INTEGER NOT NULL,
    "limit" INTEGER,
    "concurrency" INTEGER NOT NULL DEFAULT 1,
    "origin" TEXT NOT NULL DEFAULT 'app',
    "label" TEXT NOT NULL DEFAULT '',
    "status" "EvalReportStatus" NOT NULL DEFAULT 'QUEUED',
    "total" INTEGER NOT NULL DEFAULT 0,
    "done" INTEGER NOT NULL DEFAULT 0,
    "kbIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "metrics" JSONB,
    "error" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "heartbeatAt" TIMESTAMP(3),

    CONSTRAINT "EvalReport_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvalResult" (
    "id" TEXT NOT NULL,
    "reportId" TEXT NOT NULL,
    "questionId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "correct" BOOLEAN,
    "result" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EvalResult_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "EvalSuite_name_key" ON "EvalSuite"("name");

-- CreateIndex
CREATE INDEX "EvalQuestion_suiteId_position_idx" ON "EvalQuestion"("suiteId", "position");

-- CreateIndex
CREATE INDEX "EvalReport_journalKey_status_idx" ON "EvalReport"("journalKey", "status");

-- CreateIndex
CREATE INDEX "EvalReport_createdAt_idx" ON "EvalReport"("createdAt");

-- CreateIndex
CREATE INDEX "EvalResult_reportId_position_idx" ON "EvalResult"("reportId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "EvalResult_reportId_questionId_key" ON "EvalResult"("reportId", "questionId");

-- AddForeignKey
ALTER TABLE "EvalQuestion" ADD CONSTRAINT "EvalQuestion_suiteId_fkey" FOREIGN KEY ("suiteId") REFERENCES "EvalSuite"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EvalResult" ADD CONSTRAINT "EvalResult_reportId_fkey" FOREIGN KEY ("reportId") REFERENCES "EvalReport"("id") ON DELETE CASCADE ON UPDATE CASCADE;
