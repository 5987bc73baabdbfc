-- Analysts' notes on a table: column synonyms and descriptions, measures (lib/catalog/table-notes.ts).
ALTER TABLE "SourceObject" ADD COLUMN "annotations" JSONB NOT NULL DEFAULT '{}';
