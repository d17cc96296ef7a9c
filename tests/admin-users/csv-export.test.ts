import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseCsv as parse } from '../setup/csv.ts';
import { User } from '../../src/modules/users/user.model.ts';
import { bearer, buildOrganization, buildUser } from '../factories/index.ts';
import { buildAdmin } from '../factories/mfa.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { textBody } from '../setup/body-parsers.ts';

describe('Users CSV export', () => {
  let t: TestApp;
  let token: string;
  let orgId: string;

  before(async () => {
    t = await startTestApp();
    ({ token } = await buildAdmin(t));
    orgId = (await buildOrganization({ name: 'Quotes, "Commas" & Co' })).id;
    await buildUser({
      organizationId: orgId,
      role: 'ROLE_MEMBER',
      firstName: '=HYPERLINK("http://evil.test")',
      lastName: 'Smith',
      email: 'formula@csv.test',
    });
    await buildUser({
      organizationId: orgId,
      role: 'ROLE_CLIENT_USER',
      firstName: 'Line',
      lastName: 'Break\nInside',
      email: 'newline@csv.test',
      status: 'suspended',
    });
    await buildUser({
      organizationId: orgId,
      role: 'ROLE_SPONSOR_ADMIN',
      firstName: '+Plus',
      lastName: 'Minus',
      email: '@at@csv.test',
    });
    const plain = await buildUser({
      organizationId: orgId,
      role: 'ROLE_CLIENT_ADMIN',
      firstName: 'Plain',
      lastName: 'Person',
      email: 'plain@csv.test',
    });
    await User.update({ lastLoginAt: new Date('2026-05-05T05:05:05.000Z') }, { where: { id: plain.id } });
  });
  after(() => t.close());

  const exportCsv = (query: string, accept = 'text/csv') =>
    t.http.get(`/api/admin/users${query}`).set(bearer(token)).set('Accept', accept).buffer(true).parse(textBody);

  it('when asked with Accept: text/csv, then the filtered list comes as CSV with a header row', async () => {
    const res = await exportCsv(`?organizationId=${orgId}&order[email]=asc`).expect(200);
    assert.match(res.headers['content-type'], /^text\/csv; charset=utf-8/);
    assert.match(res.headers['content-disposition'], /^attachment; filename="users-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows: string[][] = parse(res.body as string);
    assert.equal(rows[0]!.join(','), 'ID,Name,Email,Role,Organization,Status,Last Login,Created,Deleted');
    assert.equal(rows.length, 5);
    const plain = rows.find((r) => r[2] === 'plain@csv.test')!;
    assert.equal(plain[1], 'Plain Person');
    assert.equal(plain[3], 'Client Admin');
    assert.equal(plain[4], 'Quotes, "Commas" & Co', 'commas and quotes survive a round trip');
    assert.equal(plain[5], 'Active');
    assert.equal(plain[6], '2026-05-05T05:05:05.000Z');
    assert.match(plain[7]!, /^\d{4}-\d{2}-\d{2}T/);
    assert.equal(plain[8], '', 'a live user has no deletion time');
    assert.equal(
      rows.find((r) => r[2] === 'newline@csv.test')![1],
      'Line Break\nInside',
      'embedded newline is quoted, not a new row',
    );
  });

  it('when a cell starts with = + - or @, then it is neutralised with a leading apostrophe', async () => {
    const res = await exportCsv(`?organizationId=${orgId}`).expect(200);
    const rows: string[][] = parse(res.body as string);
    assert.equal(rows.find((r) => r[2] === 'formula@csv.test')![1], `'=HYPERLINK("http://evil.test") Smith`);
    const at = rows.find((r) => r[2] === `'@at@csv.test`);
    assert.ok(at, 'an e-mail starting with @ is neutralised too');
    assert.equal(at[1], "'+Plus Minus");
    assert.ok(
      !(res.body as string).includes('\n=HYPERLINK') && !(res.body as string).includes(',=HYPERLINK'),
      'no cell starts with =',
    );
  });

  it('when format=csv is given, then CSV comes whatever the Accept header, with filters applied', async () => {
    const res = await exportCsv(`?format=csv&organizationId=${orgId}&status=suspended`, 'application/json').expect(200);
    const rows: string[][] = parse(res.body as string);
    assert.deepEqual(
      rows.map((r) => r[2]),
      ['Email', 'newline@csv.test'],
    );
  });

  it('when the deleted users are exported, then each says when it was deleted', async () => {
    const gone = await buildUser({ organizationId: orgId, role: 'ROLE_MEMBER', email: 'gone@csv.test' });
    await gone.destroy(); // the soft delete (paranoid)
    await gone.reload({ paranoid: false });
    const res = await exportCsv(`?deleted=true&organizationId=${orgId}`).expect(200);
    const rows: string[][] = parse(res.body as string);
    const row = rows.find((r) => r[2] === 'gone@csv.test');
    assert.ok(row, res.body as string);
    assert.equal(row[8], gone.deletedAt!.toISOString());
  });

  it('when nothing matches, then the export is the header row alone', async () => {
    const res = await exportCsv('?email=nobody-matches-this').expect(200);
    assert.equal(res.body, 'ID,Name,Email,Role,Organization,Status,Last Login,Created,Deleted\r\n', 'RFC 4180: CRLF');
  });

  it('when the list has more rows than a page, then the export holds all of them', async () => {
    const org = await buildOrganization();
    for (let i = 0; i < 120; i++)
      await User.create({
        organizationId: org.id,
        role: 'ROLE_MEMBER',
        firstName: 'Bulk',
        lastName: String(i),
        email: `bulk${i}@many.test`,
      });
    const res = await exportCsv(`?organizationId=${org.id}&page=2&itemsPerPage=10`).expect(200);
    assert.equal(parse(res.body as string).length, 121, 'paging parameters are ignored by the export');
    const json = await t.http.get(`/api/admin/users?organizationId=${org.id}`).set(bearer(token)).expect(200);
    assert.equal(json.body.pagination.totalItems, 120, 'without CSV asked for, the answer is the JSON page');
  });
});
