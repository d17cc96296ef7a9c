// Excel: one unit per worksheet, pageNumber = the sheet's position (1-based, as the tabs are ordered).
// Formula cells contribute their cached result (what the user sees), never the formula. A first row of
// labels turns each later row into "Label: value" pairs, so a row reads on its own in a passage.
import ExcelJS from 'exceljs';
import { cleanText, type Extraction, type TextUnit } from './extracted-text.ts';

type CellValue = ExcelJS.CellValue;

function cellText(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value !== 'object') return String(value);
  if ('result' in value) return cellText((value as ExcelJS.CellFormulaValue).result as CellValue);
  if ('formula' in value || 'sharedFormula' in value) return '';
  if ('richText' in value) return value.richText.map((part) => part.text).join('');
  if ('text' in value) return String((value as ExcelJS.CellHyperlinkValue).text);
  if ('error' in value) return '';
  return '';
}

function rowTexts(row: ExcelJS.Row): string[] {
  const values: string[] = [];
  row.eachCell({ includeEmpty: true }, (cell, column) => {
    values[column - 1] = cellText(cell.value).trim();
  });
  return Array.from(values, (value) => value ?? '');
}

function sheetText(worksheet: ExcelJS.Worksheet): string {
  const rows: string[][] = [];
  worksheet.eachRow({ includeEmpty: false }, (row) => {
    const texts = rowTexts(row);
    if (texts.some(Boolean)) rows.push(texts);
  });
  if (!rows.length) return '';
  const [first, ...rest] = rows;
  const labelled =
    rest.length > 0 &&
    first!.filter(Boolean).length >= 2 &&
    first!.every((text) => text === '' || Number.isNaN(Number(text)));
  if (!labelled) return rows.map((row) => row.filter(Boolean).join(' | ')).join('\n');
  const labels = first!;
  const lines = rest.map((row) =>
    row
      .map((text, i) => (text ? (labels[i] ? `${labels[i]}: ${text}` : text) : ''))
      .filter(Boolean)
      .join('; '),
  );
  return [labels.filter(Boolean).join(' | '), ...lines].join('\n');
}

export async function extractXlsx(data: Buffer): Promise<Extraction> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(data as unknown as ArrayBuffer);
  const sheets = workbook.worksheets.filter((sheet) => sheet.state !== 'veryHidden');
  const units: TextUnit[] = [];
  sheets.forEach((worksheet, index) => {
    const text = cleanText(sheetText(worksheet));
    if (text) units.push({ pageNumber: index + 1, locationKind: 'sheet', headingPath: worksheet.name, text });
  });
  return { units, pagesTotal: sheets.length, pageNumbers: 'exact' };
}
