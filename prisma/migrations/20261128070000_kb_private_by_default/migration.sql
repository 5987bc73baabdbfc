-- AlterTable: a knowledge base registered from now on is visible to admins only until an admin
-- grants groups or chooses "everyone" (issue 29).
ALTER TABLE "KnowledgeBase" ADD COLUMN     "openToEveryone" BOOLEAN NOT NULL DEFAULT false;

-- Knowledge bases registered before this column keep the access they had: no group rows meant
-- "every signed-in user", so those are now explicitly open to everyone, and the others stay with their groups.
UPDATE "KnowledgeBase" SET "openToEveryone" = true
WHERE NOT EXISTS (SELECT 1 FROM "KbGroupAccess" a WHERE a."kbId" = "KnowledgeBase"."id");
