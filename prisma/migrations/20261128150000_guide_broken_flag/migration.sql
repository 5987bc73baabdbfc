-- A guide whose query no longer runs is flagged with the reason (set by a run or by "Check now", cleared when it runs again)
ALTER TABLE "ExtractionGuide" ADD COLUMN "brokenReason" TEXT;
ALTER TABLE "ExtractionGuide" ADD COLUMN "checkedAt" TIMESTAMP(3);
