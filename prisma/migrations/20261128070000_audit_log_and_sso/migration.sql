-- AlterTable
ALTER TABLE "User" ADD COLUMN "oidcSubject" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "User_oidcSubject_key" ON "User"("oidcSubject");

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "action" TEXT NOT NULL,
    "outcome" TEXT NOT NULL DEFAULT 'success',
    "actorId" TEXT,
    "actorEmail" TEXT,
    "address" TEXT,
    "targetType" TEXT,
    "targetId" TEXT,
    "kbIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "runId" TEXT,
    "before" JSONB,
    "after" JSONB,
    "detail" JSONB,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AuditEvent_at_idx" ON "AuditEvent"("at");

-- CreateIndex
CREATE INDEX "AuditEvent_actorId_at_idx" ON "AuditEvent"("actorId", "at");

-- CreateIndex
CREATE INDEX "AuditEvent_action_at_idx" ON "AuditEvent"("action", "at");

-- Append-only: a record, once written, is never changed. An UPDATE of an audit record does nothing.
-- (A rule, not a PL/pgSQL trigger: the PostgreSQL adapter runs a migration split at every semicolon.)
-- Deletion is the retention purge's alone, and the purge records itself.
CREATE RULE "AuditEvent_append_only" AS ON UPDATE TO "AuditEvent" DO INSTEAD NOTHING;
