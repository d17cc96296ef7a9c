// U+0000 cannot be stored in PostgreSQL text or jsonb. Before the guard, a NUL in a bound parameter
// failed in the database (500: chat questions, feedback comments, list filters) and a NUL in a written
// field was stored as the two characters "\0" (members, categories, resource names). Now every JSON
// API refuses it with a 400 naming the field, before any route runs; a literal "\u0000" text (an
// escaped backslash) is ordinary text and is stored as sent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('NUL characters in requests', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await startTestApp();
    token = await tokenFor(
      t,
      await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: (await buildOrganization()).id }),
    );
  });
  after(() => t.close());

  const json = (path: string, body: string) =>
    t.http.post(path).set(bearer(token)).set('Content-Type', 'application/json').send(body);
  const fieldsOf = (body: Record<string, any>) => body.errors.map((e: { field: string }) => e.field);

  it('when a JSON body holds a NUL, then 400 names the field (nested too) and nothing is stored', async () => {
    const member = expectProblem(
      await json('/api/members', '{"firstName":"Ada\\u0000","lastName":"L","email":"nul@example.test"}'),
      400,
      'validation_failed',
    );
    assert.deepEqual(fieldsOf(member), ['firstName']);
    assert.match(member.errors[0].message, /NUL/);
    const members = await t.http.get('/api/members?email=nul@example.test').set(bearer(token)).expect(200);
    assert.equal(members.body.pagination.totalItems, 0);
    const category = expectProblem(
      await json('/api/resources/categories', '{"name":"Cat\\u0000egory"}'),
      400,
      'validation_failed',
    );
    assert.deepEqual(fieldsOf(category), ['name']);
    const scoped = expectProblem(
      await json('/api/resources/chat', '{"query":"dues","resourceScope":["ok","a\\u0000"]}'),
      400,
      'validation_failed',
    );
    assert.deepEqual(fieldsOf(scoped), ['resourceScope[1]']);
  });

  it('when a chat question or a feedback comment holds a NUL, then 400 instead of a database failure', async () => {
    assert.deepEqual(
      fieldsOf(
        expectProblem(await json('/api/resources/chat', '{"query":"dues\\u0000students"}'), 400, 'validation_failed'),
      ),
      ['query'],
    );
    const feedback = '{"turnId":"00000000-0000-4000-8000-000000000000","helpful":false,"comment":"bad\\u0000"}';
    assert.deepEqual(
      fieldsOf(expectProblem(await json('/api/resources/chat/feedback', feedback), 400, 'validation_failed')),
      ['comment'],
    );
  });

  it('when a query parameter or the path holds %00, then 400 names the parameter (or the path)', async () => {
    assert.deepEqual(
      fieldsOf(
        expectProblem(await t.http.get('/api/members?lastName=a%00b').set(bearer(token)), 400, 'validation_failed'),
      ),
      ['lastName'],
    );
    assert.deepEqual(
      fieldsOf(expectProblem(await t.http.get('/api/members/%00').set(bearer(token)), 400, 'validation_failed')),
      ['path'],
    );
    // credential first: without one the answer is 401 whatever the URL holds
    expectProblem(await t.http.get('/api/members?lastName=a%00b'), 401, 'unauthenticated');
  });

  it('when the text holds a backslash followed by u0000 (not a NUL), then it is stored exactly as sent', async () => {
    const res = await json(
      '/api/members',
      '{"firstName":"Ada \\\\u0000 Byron","lastName":"L","email":"literal@example.test"}',
    ).expect(201);
    assert.equal(res.body.firstName, 'Ada \\u0000 Byron');
    const stored = await t.http.get(`/api/members/${res.body.id}`).set(bearer(token)).expect(200);
    assert.equal(stored.body.firstName, 'Ada \\u0000 Byron');
  });
});
