-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('ADMIN', 'ANALYST', 'USER');

-- CreateEnum
CREATE TYPE "KbKind" AS ENUM ('DOCUMENTS', 'SQL', 'SPARQL', 'CYPHER');

-- CreateEnum
CREATE TYPE "KbStatus" AS ENUM ('PENDING', 'HEALTHY', 'DEGRADED', 'UNREACHABLE', 'ERROR');

-- CreateEnum
CREATE TYPE "SourceContentType" AS ENUM ('TEXT', 'TABLE', 'GRAPH');

-- CreateEnum
CREATE TYPE "SourceMode" AS ENUM ('STATIC', 'DYNAMIC');

-- CreateEnum
CREATE TYPE "RetrievalActionKind" AS ENUM ('NATIVE_QUERY', 'SELECT_COORDINATES', 'SELECT_SENTENCE_IDXS', 'NEIGHBORHOOD');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('QUEUED', 'RUNNING', 'ANSWERED', 'REFRAINED', 'FAILED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "TraceEventType" AS ENUM ('START', 'END', 'ERROR', 'INFO');

-- CreateEnum
CREATE TYPE "FeedbackVerdict" AS ENUM ('HELPFUL', 'WRONG');

-- CreateEnum
CREATE TYPE "FeedbackStatus" AS ENUM ('OPEN', 'RESOLVED');

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "role" "Role" NOT NULL DEFAULT 'USER',
    "active" BOOLEAN NOT NULL DEFAULT true,
    "lastSignInAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Group" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Group_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GroupMembership" (
    "userId" TEXT NOT NULL,
    "groupId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GroupMembership_pkey" PRIMARY KEY ("userId","groupId")
);

-- CreateTable
CREATE TABLE "KnowledgeBase" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "KbKind" NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "config" JSONB NOT NULL DEFAULT '{}',
    "secretsCiphertext" TEXT,
    "descriptor" TEXT,
    "descriptorVersion" TEXT,
    "describedAt" TIMESTAMP(3),
    "status" "KbStatus" NOT NULL DEFAULT 'PENDING',
    "lastCheckAt" TIMESTAMP(3),
    "lastCheckMessage" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "KnowledgeBase_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KbGroupAccess" (
    "kbId" TEXT NOT NULL,
    "groupId" TEXT NOT NULL,

    CONSTRAINT "KbGroupAccess_pkey" PRIMARY KEY ("kbId","groupId")
);

-- CreateTable
CREATE TABLE "SourceObject" (
    "id" TEXT NOT NULL,
    "kbId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "contentType" "SourceContentType" NOT NULL,
    "mode" "SourceMode" NOT NULL DEFAULT 'STATIC',
    "refreshQuery" TEXT,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "description" TEXT NOT NULL DEFAULT '',
    "descriptionEdited" BOOLEAN NOT NULL DEFAULT false,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "lastRefreshedAt" TIMESTAMP(3),
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SourceObject_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ExtractionGuide" (
    "id" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "answer" TEXT,
    "notes" TEXT NOT NULL DEFAULT '',
    "corrections" JSONB NOT NULL DEFAULT '[]',
    "createdById" TEXT,
    "fromRunId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ExtractionGuide_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GuideSource" (
    "id" TEXT NOT NULL,
    "guideId" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "kbId" TEXT NOT NULL,
    "sourceObjectId" TEXT,

    CONSTRAINT "GuideSource_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GuideAction" (
    "id" TEXT NOT NULL,
    "sourceId" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "kind" "RetrievalActionKind" NOT NULL,
    "params" JSONB NOT NULL,
    "context" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "GuideAction_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Conversation" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Conversation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "conversationId" TEXT,
    "question" TEXT NOT NULL,
    "requestedKbIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "intent" JSONB,
    "answer" TEXT,
    "refrained" BOOLEAN NOT NULL DEFAULT false,
    "refrainReason" TEXT,
    "confidence" DOUBLE PRECISION,
    "status" "RunStatus" NOT NULL DEFAULT 'QUEUED',
    "error" TEXT,
    "timings" JSONB NOT NULL DEFAULT '{}',
    "result" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TraceEvent" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "stage" TEXT NOT NULL,
    "type" "TraceEventType" NOT NULL,
    "strategy" TEXT,
    "durationMs" INTEGER,
    "summary" TEXT NOT NULL DEFAULT '',
    "payload" JSONB NOT NULL DEFAULT '{}',
    "costUsd" DOUBLE PRECISION,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TraceEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RunGuideUse" (
    "runId" TEXT NOT NULL,
    "guideId" TEXT NOT NULL,
    "score" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "RunGuideUse_pkey" PRIMARY KEY ("runId","guideId")
);

-- CreateTable
CREATE TABLE "Feedback" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "verdict" "FeedbackVerdict" NOT NULL,
    "correctAnswer" TEXT,
    "comment" TEXT,
    "status" "FeedbackStatus" NOT NULL DEFAULT 'OPEN',
    "resolvedById" TEXT,
    "resolvedAt" TIMESTAMP(3),
    "resolvedGuideId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Feedback_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL DEFAULT '{}',
    "secretCiphertext" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Setting_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE UNIQUE INDEX "Group_name_key" ON "Group"("name");

-- CreateIndex
CREATE INDEX "GroupMembership_groupId_idx" ON "GroupMembership"("groupId");

-- CreateIndex
CREATE UNIQUE INDEX "KnowledgeBase_name_key" ON "KnowledgeBase"("name");

-- CreateIndex
CREATE INDEX "KbGroupAccess_groupId_idx" ON "KbGroupAccess"("groupId");

-- CreateIndex
CREATE INDEX "SourceObject_kbId_idx" ON "SourceObject"("kbId");

-- CreateIndex
CREATE UNIQUE INDEX "SourceObject_kbId_key_key" ON "SourceObject"("kbId", "key");

-- CreateIndex
CREATE UNIQUE INDEX "ExtractionGuide_fromRunId_key" ON "ExtractionGuide"("fromRunId");

-- CreateIndex
CREATE INDEX "GuideSource_guideId_idx" ON "GuideSource"("guideId");

-- CreateIndex
CREATE INDEX "GuideSource_kbId_idx" ON "GuideSource"("kbId");

-- CreateIndex
CREATE INDEX "GuideAction_sourceId_idx" ON "GuideAction"("sourceId");

-- CreateIndex
CREATE INDEX "Conversation_userId_updatedAt_idx" ON "Conversation"("userId", "updatedAt");

-- CreateIndex
CREATE INDEX "Run_userId_createdAt_idx" ON "Run"("userId", "createdAt");

-- CreateIndex
CREATE INDEX "Run_conversationId_createdAt_idx" ON "Run"("conversationId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "TraceEvent_runId_seq_key" ON "TraceEvent"("runId", "seq");

-- CreateIndex
CREATE INDEX "RunGuideUse_guideId_idx" ON "RunGuideUse"("guideId");

-- CreateIndex
CREATE INDEX "Feedback_status_createdAt_idx" ON "Feedback"("status", "createdAt");

-- CreateIndex
CREATE INDEX "Feedback_runId_idx" ON "Feedback"("runId");

-- AddForeignKey
ALTER TABLE "GroupMembership" ADD CONSTRAINT "GroupMembership_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GroupMembership" ADD CONSTRAINT "GroupMembership_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "Group"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "KnowledgeBase" ADD CONSTRAINT "KnowledgeBase_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "KbGroupAccess" ADD CONSTRAINT "KbGroupAccess_kbId_fkey" FOREIGN KEY ("kbId") REFERENCES "KnowledgeBase"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "KbGroupAccess" ADD CONSTRAINT "KbGroupAccess_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "Group"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SourceObject" ADD CONSTRAINT "SourceObject_kbId_fkey" FOREIGN KEY ("kbId") REFERENCES "KnowledgeBase"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SourceObject" ADD CONSTRAINT "SourceObject_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExtractionGuide" ADD CONSTRAINT "ExtractionGuide_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExtractionGuide" ADD CONSTRAINT "ExtractionGuide_fromRunId_fkey" FOREIGN KEY ("fromRunId") REFERENCES "Run"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuideSource" ADD CONSTRAINT "GuideSource_guideId_fkey" FOREIGN KEY ("guideId") REFERENCES "ExtractionGuide"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuideSource" ADD CONSTRAINT "GuideSource_kbId_fkey" FOREIGN KEY ("kbId") REFERENCES "KnowledgeBase"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuideSource" ADD CONSTRAINT "GuideSource_sourceObjectId_fkey" FOREIGN KEY ("sourceObjectId") REFERENCES "SourceObject"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuideAction" ADD CONSTRAINT "GuideAction_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "GuideSource"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Conversation" ADD CONSTRAINT "Conversation_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TraceEvent" ADD CONSTRAINT "TraceEvent_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunGuideUse" ADD CONSTRAINT "RunGuideUse_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunGuideUse" ADD CONSTRAINT "RunGuideUse_guideId_fkey" FOREIGN KEY ("guideId") REFERENCES "ExtractionGuide"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Feedback" ADD CONSTRAINT "Feedback_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Feedback" ADD CONSTRAINT "Feedback_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Feedback" ADD CONSTRAINT "Feedback_resolvedById_fkey" FOREIGN KEY ("resolvedById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Feedback" ADD CONSTRAINT "Feedback_resolvedGuideId_fkey" FOREIGN KEY ("resolvedGuideId") REFERENCES "ExtractionGuide"("id") ON DELETE SET NULL ON UPDATE CASCADE;
