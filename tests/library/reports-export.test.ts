// Report exports: CSV through the shared streamed writer, XLSX through exceljs's streaming writer,
// both formula-safe; parsed back (the XLSX with exceljs) and compared with the JSON report.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ExcelJS from 'exceljs';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildResource, recordEvents } from '../factories/resource-usage.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { parseCsv } from '../setup/csv.ts';
import { binaryBody } from '../setup/body-parsers.ts';

const NOW = new Date('2026-06-15T12:00:00Z');
const RISKY = "=cmd|' /C calc'!A0";

async function workbookOf(body: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  // exceljs types its input as its own Buffer interface; a Node Buffer is what it reads at run time
  await workbook.xlsx.load(body as unknown as ExcelJS.Buffer);
  return workbook;
}

describe('library report exports', () => {
  let t: TestApp;
  let admin: string;
  let risky: { id: string };
  let plain: { id: string };
  let userId: string;

  before(async () => {
    t = await startTestApp();
    t.clock.set(NOW);
    const organizationId = (await buildOrganization()).id;
    admin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
    const user = await buildUser({ role: 'ROLE_MEMBER', organizationId, firstName: '+SUM(1,2)', lastName: 'Reader' });
    userId = user.id;
    risky = await buildResource(t.db.sequelize, organizationId, { name: RISKY });
    plain = await buildResource(t.db.sequelize, organizationId, { name: 'Plain, "quoted" name' });
    await recordEvents(t.db.sequelize, organizationId, [
      { resourceId: risky.id, kind: 'download', at: '2026-06-14T10:00:00Z', userId, times: 3 },
      { resourceId: risky.id, kind: 'view', at: '2026-06-15T10:00:00Z', userId, times: 2 },
      { resourceId: plain.id, kind: 'view', at: '2026-06-13T10:00:00Z', visitorKey: 'anonymous:x' },
    ]);
  });
  after(() => t.close());

  const exportOf = (body: object) =>
    t.http.post('/api/resources/reports/export').set(bearer(admin)).send(body).buffer(true).parse(binaryBody);

  it('when the usage report is exported as CSV, then a header row and every row, formula cells neutralised, as an attachment', async () => {
    const res = await exportOf({ report: 'usage', format: 'csv', from: '2026-06-01', to: '2026-06-15' }).expect(200);
    assert.match(res.headers['content-type'], /^text\/csv/);
    assert.equal(res.headers['content-disposition'], 'attachment; filename=resource-usage-2026-06-01-2026-06-15.csv');
    const rows = parseCsv((res.body as Buffer).toString('utf8'));
    assert.deepEqual(rows[0], [
      'Resource ID',
      'Name',
      'Type',
      'Format',
      'Access level',
      'Status',
      'Views',
      'Downloads',
      'Unique users',
      'Last activity',
    ]);
    assert.deepEqual(rows[1], [
      risky.id,
      `'${RISKY}`,
      'document',
      'pdf',
      'members',
      'published',
      '2',
      '3',
      '1',
      '2026-06-15T10:00:00.000Z',
    ]);
    assert.deepEqual(rows[2], [
      plain.id,
      'Plain, "quoted" name',
      'document',
      'pdf',
      'members',
      'published',
      '1',
      '0',
      '1',
      '2026-06-13T10:00:00.000Z',
    ]);
    assert.equal(rows.length, 3);
  });

  it('when the members report is exported as XLSX, then exceljs reads back the same rows, numbers as numbers and formula-like text neutralised', async () => {
    const res = await exportOf({ report: 'members', format: 'xlsx', from: '2026-06-01', to: '2026-06-15' }).expect(200);
    assert.equal(res.headers['content-type'], 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    assert.equal(
      res.headers['content-disposition'],
      'attachment; filename=resource-members-2026-06-01-2026-06-15.xlsx',
    );
    const workbook = await workbookOf(res.body as Buffer);
    const sheet = workbook.getWorksheet('members');
    assert.ok(sheet, 'a sheet named after the report');
    const values = (n: number) => (sheet.getRow(n).values as unknown[]).slice(1);
    assert.deepEqual(values(1), ['User ID', 'Name', 'Email', 'Views', 'Downloads', 'Resources used', 'Last activity']);
    const row = values(2);
    assert.equal(row[0], userId);
    assert.equal(row[1], "'+SUM(1,2) Reader");
    assert.deepEqual(row.slice(3, 6), [2, 3, 1]);
    assert.equal(sheet.getRow(2).getCell(2).type, ExcelJS.ValueType.String, 'text, never a formula');
    assert.equal(sheet.rowCount, 2);
  });

  it('when the usage report is exported as XLSX and trends by week, then the cells match the JSON report', async () => {
    const usage = await exportOf({ report: 'usage', format: 'xlsx', from: '2026-06-01', to: '2026-06-15' }).expect(200);
    const workbook = await workbookOf(usage.body as Buffer);
    const cells = (workbook.getWorksheet('usage')!.getRow(2).values as unknown[]).slice(1);
    assert.deepEqual(cells.slice(0, 2), [risky.id, `'${RISKY}`]);
    assert.deepEqual(cells.slice(6, 9), [2, 3, 1]);

    const trends = await exportOf({
      report: 'trends',
      format: 'csv',
      from: '2026-06-01',
      to: '2026-06-15',
      interval: 'week',
    }).expect(200);
    const json = await t.http
      .get('/api/resources/reports/trends?from=2026-06-01&to=2026-06-15&interval=week')
      .set(bearer(admin))
      .expect(200);
    const rows = parseCsv((trends.body as Buffer).toString('utf8')).slice(1);
    assert.deepEqual(
      rows,
      json.body.data.map((r: Record<string, unknown>) => [
        r.periodStart,
        r.periodEnd,
        String(r.views),
        String(r.downloads),
        String(r.uniqueUsers),
      ]),
    );
  });

  it('when the body names an unknown report or format, then 400 before anything streams', async () => {
    expectProblem(
      await t.http
        .post('/api/resources/reports/export')
        .set(bearer(admin))
        .send({ report: 'everything', format: 'csv' }),
      400,
      'validation_failed',
    );
    expectProblem(
      await t.http.post('/api/resources/reports/export').set(bearer(admin)).send({ report: 'usage', format: 'pdf' }),
      400,
      'validation_failed',
    );
    expectProblem(
      await t.http
        .post('/api/resources/reports/export')
        .set(bearer(admin))
        .send({ report: 'usage', format: 'csv', from: '2026-06-15', to: '2026-06-01' }),
      400,
      'validation_failed',
    );
  });
});
