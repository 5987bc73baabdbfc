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

-- Append-only: a record, once written, is never changed. (Deletion is the retention purge's alone; the
-- application has no other delete path, and the purge records itself.)
CREATE FUNCTION "audit_event_refuse_update"() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'audit records are append-only';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "AuditEvent_append_only" BEFORE UPDATE ON "AuditEvent"
  FOR EACH ROW EXECUTE FUNCTION "audit_event_refuse_update"();
