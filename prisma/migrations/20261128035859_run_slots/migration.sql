-- CreateTable
CREATE TABLE "RunSlot" (
    "id" TEXT NOT NULL,
    "principal" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RunSlot_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RunSlot_principal_expiresAt_idx" ON "RunSlot"("principal", "expiresAt");
