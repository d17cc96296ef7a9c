import type { MigrationContext } from '../src/shared/migrator.ts';

// OCR in ingestion (scanned PDF pages, PNG and JPEG images): how many pages of the run were read by OCR
// and the mean confidence (0 to 1) of the words it read there, for the ingestion status.
export async function up({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE resource_ingestions
      ADD COLUMN ocr_pages integer NOT NULL DEFAULT 0 CHECK (ocr_pages >= 0),
      ADD COLUMN ocr_confidence real CHECK (ocr_confidence BETWEEN 0 AND 1);
  `);
}

export async function down({ sequelize }: MigrationContext): Promise<void> {
  await sequelize.query(`
    ALTER TABLE resource_ingestions DROP COLUMN ocr_confidence, DROP COLUMN ocr_pages;
  `);
}
