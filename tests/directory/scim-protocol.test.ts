// The protocol itself, whoever the client: paging through 250 users, the filter grammar and its
// errors, ETags (304, 412), PATCH errors with their scimType, and every answer application/scim+json.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { entraUser } from './fixtures/entra-requests.ts';
import {
  addDirectory,
  expectScim,
  expectScimError,
  expectScimJson,
  filter,
  patchOp,
  type ScimClient,
  scimClient,
} from './fixtures/scim-client.ts';

describe('SCIM protocol', () => {
  let t: TestApp;
  let scim: ScimClient;

  before(async () => {
    t = await startTestApp();
    scim = scimClient(t, (await addDirectory(t)).token);
  });
  after(() => t.close());

  it('when 250 users are provisioned, then startIndex and count page through all of them once', async () => {
    for (let batch = 0; batch < 25; batch++)
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const n = batch * 10 + i;
          const body = entraUser('paging.example', { externalId: `page-${String(n).padStart(3, '0')}` });
          expectScim(await scim.post('/Users', body), 201);
        }),
      );
    const seen = new Set<string>();
    for (let startIndex = 1; startIndex <= 250; startIndex += 100) {
      const page = expectScim(await scim.get(`/Users?startIndex=${startIndex}&count=100`), 200);
      assert.equal(page.totalResults, 250);
      assert.equal(page.startIndex, startIndex);
      assert.equal(page.itemsPerPage, startIndex === 201 ? 50 : 100);
      for (const user of page.Resources) seen.add(user.id);
    }
    assert.equal(seen.size, 250);
    const capped = expectScim(await scim.get('/Users?count=1000'), 200);
    assert.equal(capped.itemsPerPage, 200, 'maxResults');
    const countOnly = expectScim(await scim.get('/Users?count=0'), 200);
    assert.deepEqual([countOnly.totalResults, countOnly.Resources], [250, []]);
    const beyond = expectScim(await scim.get('/Users?startIndex=300'), 200);
    assert.deepEqual([beyond.totalResults, beyond.itemsPerPage], [250, 0]);
    const defaults = expectScim(await scim.get('/Users?startIndex=0'), 200);
    assert.deepEqual([defaults.startIndex, defaults.itemsPerPage], [1, 100]);
    // each field's message said once: in a detail of its own, or after the catalog's list of fields
    assert.equal(
      expectScimError(await scim.get('/Users?count=ten'), 400, 'invalidValue').detail,
      'count is an integer',
    );
    const filtered = expectScim(await scim.get(`/Users?${filter('externalId sw "page-24"')}&count=5`), 200);
    assert.deepEqual([filtered.totalResults, filtered.itemsPerPage], [10, 5]);
  });

  it('when lists are filtered, then eq, co, sw, pr, and, or, not and parentheses select as RFC 7644 says', async () => {
    const ada = expectScim(
      await scim.post('/Users', {
        userName: 'ada@filters.example',
        externalId: 'F-ADA',
        name: { givenName: 'Augusta', familyName: 'Lovelace' },
        displayName: 'Augusta Ada L',
        emails: [
          { type: 'home', value: 'ada@home.example' },
          { type: 'work', value: 'ada@filters.example', primary: true },
        ],
      }),
      201,
    );
    const grace = expectScim(
      await scim.post('/Users', {
        userName: 'grace@filters.example',
        externalId: 'F-GRACE',
        name: { givenName: 'Grace', familyName: 'Hopper' },
        active: false,
      }),
      201,
    );
    const ids = async (expression: string) =>
      expectScim(await scim.get(`/Users?${filter(expression)}`), 200)
        .Resources.map((u: { id: string }) => u.id)
        .sort();
    const both = [ada.id, grace.id].sort();
    assert.deepEqual(await ids('userName co "@FILTERS.example"'), both);
    assert.deepEqual(await ids('userName sw "ada@" or userName ew "grace@filters.example"'), both);
    assert.deepEqual(await ids('externalId eq "F-ADA"'), [ada.id]);
    assert.deepEqual(await ids('externalId eq "f-ada"'), [], 'externalId is caseExact');
    assert.deepEqual(await ids('displayName pr and userName co "filters"'), [ada.id]);
    assert.deepEqual(await ids('name.familyName eq "hopper" and active eq false'), [grace.id]);
    assert.deepEqual(await ids('userName co "filters" and not (active eq false)'), [ada.id]);
    assert.deepEqual(await ids('(name.givenName eq "augusta" or name.givenName eq "Grace") and active eq true'), [
      ada.id,
    ]);
    assert.deepEqual(await ids('emails[type eq "work"].value eq "ada@filters.example"'), [ada.id]);
    assert.deepEqual(await ids('emails[type eq "work"].value eq "ada@home.example"'), [], 'the home one is not work');
    assert.deepEqual(await ids('emails.value eq "ADA@home.example"'), [ada.id]);
    assert.deepEqual(await ids('emails[type eq "home" and value co "ada"]'), [ada.id]);
    assert.deepEqual(await ids(`id eq "${grace.id}"`), [grace.id]);
    assert.deepEqual(await ids('id eq "not-a-uuid"'), []);
    assert.deepEqual(await ids(`meta.lastModified ge "${ada.meta.created}" and userName co "@filters."`), both);
    assert.deepEqual(await ids('userName eq "100%_\\\\"'), [], 'LIKE characters and backslashes are values');
    for (const bad of [
      'userName eq',
      'userName equals "x"',
      'password eq "x"',
      'userName eq "unterminated',
      'active co "true"',
      '(userName eq "x"',
      'userName eq "x" and',
      'meta.created gt "yesterday"',
      // escapes spelling what PostgreSQL cannot compare (they were a 500)
      'userName eq "\\u0000"',
      'userName co "a\\ud800"',
    ])
      expectScimError(await scim.get(`/Users?${filter(bad)}`), 400, 'invalidFilter');
    expectScimError(await scim.get(`/Groups?${filter('displayName eq "\\u0000"')}`), 400, 'invalidFilter');
  });

  it('when a client asks for /Me or /Bulk, then 501 says this server does not offer them (RFC 7644 §3.11, §3.7)', async () => {
    expectScimError(await scim.get('/Me'), 501);
    expectScimError(await scim.patch('/Me', { schemas: [], Operations: [] }), 501);
    expectScimError(await scim.post('/Bulk', { schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'] }), 501);
    expectScimError(await scim.get('/Nothing'), 404);
    assert.equal(
      expectScimError(await scim.get(`/Users?${filter('userName eq')}`), 400, 'invalidFilter').detail,
      'Query parameter "filter" ends where a value was expected',
    );
    expectScimError(await scim.get(`/Groups?${filter('members.display co 1')}`), 400, 'invalidFilter');
  });

  it('when attributes or excludedAttributes name sub-attributes or URN-qualified names, then the resource is narrowed to them (RFC 7644 §3.10)', async () => {
    const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
    const body = entraUser('attributes.example', { [ENTERPRISE]: { department: 'Finance', employeeNumber: '4711' } });
    const user = expectScim(await scim.post('/Users', body), 201);
    const read = async (query: string) => expectScim(await scim.get(`/Users/${user.id}?${query}`), 200);
    const keys = (resource: Record<string, unknown>) => Object.keys(resource).sort();

    const department = await read(`attributes=${ENTERPRISE}:department`);
    assert.deepEqual(keys(department), ['id', 'meta', 'schemas', ENTERPRISE]);
    assert.deepEqual(department[ENTERPRISE], { department: 'Finance' });
    const qualified = await read('attributes=urn:ietf:params:scim:schemas:core:2.0:User:userName');
    assert.equal(qualified.userName, body.userName);
    assert.equal(qualified.name, undefined);
    const withoutDepartment = await read(`excludedAttributes=${ENTERPRISE.toLowerCase()}:Department`);
    assert.deepEqual(withoutDepartment[ENTERPRISE], { employeeNumber: '4711' });
    assert.equal(withoutDepartment.userName, body.userName);

    const givenName = await read('attributes=name.givenName');
    assert.deepEqual(givenName.name, { givenName: 'Ada' });
    const values = await read('attributes=emails.value,userName');
    assert.deepEqual(values.emails, [{ value: body.userName }]);
    assert.equal(values.userName, body.userName);
    const noType = await read('excludedAttributes=emails.type');
    assert.deepEqual(noType.emails, [{ primary: true, value: body.userName }]);
    // the list narrows each resource the same way
    const listed = expectScim(
      await scim.get(`/Users?attributes=name.familyName&${filter(`userName eq "${body.userName}"`)}`),
      200,
    );
    assert.deepEqual(listed.Resources[0].name, { familyName: 'Lovelace' });
  });

  it('when a client sends ETags, then a current one gives 304 and a stale If-Match gives 412', async () => {
    const createdRes = await scim.post('/Users', entraUser('etag.example'));
    const user = expectScim(createdRes, 201);
    const etag = createdRes.headers.etag!;
    assert.match(etag, /^W\/"\d+"$/);
    const unchanged = await scim.get(`/Users/${user.id}`).set('If-None-Match', etag);
    assert.equal(unchanged.status, 304);
    const replaced = await scim.put(`/Users/${user.id}`, { ...user, title: 'Chair' }).set('If-Match', etag);
    expectScim(replaced, 200);
    assert.notEqual(replaced.headers.etag, etag);
    expectScimError(await scim.put(`/Users/${user.id}`, user).set('If-Match', etag), 412);
    expectScimError(
      await scim
        .patch(`/Users/${user.id}`, patchOp({ op: 'replace', path: 'title', value: 'x' }))
        .set('If-Match', etag),
      412,
    );
    expectScimError(await scim.delete(`/Users/${user.id}`).set('If-Match', etag), 412);
    expectScim(
      await scim
        .patch(`/Users/${user.id}`, patchOp({ op: 'replace', path: 'title', value: 'Vice-chair' }))
        .set('If-Match', replaced.headers.etag!),
      200,
    );
    const changed = await scim.get(`/Users/${user.id}`).set('If-None-Match', etag);
    assert.equal(expectScim(changed, 200).title, 'Vice-chair');
    const group = await scim.post('/Groups', { displayName: 'Etag group' });
    const stale = await scim
      .patch(`/Groups/${group.body.id}`, patchOp({ op: 'replace', path: 'displayName', value: 'Renamed' }))
      .set('If-Match', 'W/"99"');
    expectScimError(stale, 412);
  });

  it('when a PATCH or a body is wrong, then the SCIM error names what is wrong with its scimType', async () => {
    const user = expectScim(await scim.post('/Users', entraUser('errors.example')), 201);
    const patch = (...operations: unknown[]) => scim.patch(`/Users/${user.id}`, patchOp(...operations));
    expectScimError(await patch({ op: 'remove' }), 400, 'noTarget');
    expectScimError(
      await patch({ op: 'replace', path: 'emails[value co "nowhere"].type', value: 'work' }),
      400,
      'noTarget',
    );
    expectScimError(await patch({ op: 'replace', path: 'name..givenName', value: 'x' }), 400, 'invalidPath');
    expectScimError(await patch({ op: 'replace', path: 'emails[type eq ].value', value: 'x' }), 400, 'invalidPath');
    expectScimError(await patch({ op: 'replace', path: 'urn:example:custom:x', value: 'x' }), 400, 'invalidPath');
    expectScimError(await patch({ op: 'replace', path: 'id', value: 'x' }), 400, 'mutability');
    expectScimError(await patch({ op: 'add', path: 'groups', value: [] }), 400, 'mutability');
    expectScimError(await patch({ op: 'replace', path: 'active', value: 'maybe' }), 400, 'invalidValue');
    expectScimError(await patch({ op: 'replace', path: 'userName', value: '' }), 400, 'invalidValue');
    expectScimError(await patch({ op: 'move', path: 'title', value: 'x' }), 400, 'invalidSyntax');
    expectScimError(await scim.patch(`/Users/${user.id}`, { schemas: [] }), 400, 'invalidSyntax');
    const malformed = await scim.post('/Users', {}).send('{"userName": ');
    expectScimError(malformed, 400, 'invalidSyntax');
    expectScimError(await scim.post('/Users', { name: { givenName: 'No userName' } }), 400, 'invalidValue');
    assert.equal(
      expectScimError(await scim.post('/Users', { userName: 123 }), 400, 'invalidValue').detail,
      'userName is a text',
    );
    expectScimError(await scim.post('/Groups', { members: [] }), 400, 'invalidValue');
    expectScimError(await scim.get('/Users/not-a-uuid'), 404);
    expectScimError(await scim.get('/Nothing'), 404);
    const unchanged = expectScim(await scim.get(`/Users/${user.id}`), 200);
    assert.equal(unchanged.meta.version, user.meta.version, 'nothing was written by a refused PATCH');
    expectScimJson(await scim.delete(`/Users/${user.id}`));
  });
});
