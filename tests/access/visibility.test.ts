// What each role sees of the organization's events and courses (src/shared/access/scope.ts): members
// and sponsors see published events (and cancelled ones, so they learn of the cancellation) and
// published courses; staff and API keys see every status. Lists, counts, filters, CSV and by-id reads
// all go through the same scope.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Role } from '../../src/shared/access/roles.ts';
import { bearer, buildApiKey, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildCourse, buildEvent } from '../factories/records.ts';
import { listIds, sameSet } from '../members/list-helpers.ts';
import { parseCsv } from '../setup/csv.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('row visibility by role', () => {
  let t: TestApp;
  let organizationId: string;
  const events: Record<'draft' | 'published' | 'cancelled', string> = { draft: '', published: '', cancelled: '' };
  const courses: Record<'draft' | 'published' | 'archived', string> = { draft: '', published: '', archived: '' };
  const tokens: Partial<Record<Role | 'API_KEY', string>> = {};

  before(async () => {
    t = await startTestApp();
    organizationId = (await buildOrganization()).id;
    for (const status of ['draft', 'published', 'cancelled'] as const)
      events[status] = (await buildEvent(organizationId, { status, title: `Event ${status}` })).id;
    for (const status of ['draft', 'published', 'archived'] as const)
      courses[status] = (await buildCourse(organizationId, { status, title: `Course ${status}` })).id;
    for (const role of [
      'ROLE_MEMBER',
      'ROLE_SPONSOR_USER',
      'ROLE_SPONSOR_ADMIN',
      'ROLE_CLIENT_USER',
      'ROLE_CLIENT_ADMIN',
    ] as const) {
      tokens[role] = await tokenFor(t, await buildUser({ role, organizationId }));
    }
    tokens.API_KEY = (await buildApiKey(organizationId)).secret;
  });
  after(() => t.close());

  for (const role of ['ROLE_MEMBER', 'ROLE_SPONSOR_USER', 'ROLE_SPONSOR_ADMIN'] as const) {
    it(`when a ${role} lists events and courses, then only published (and cancelled) events and published courses are there, totals included`, async () => {
      const token = tokens[role]!;
      sameSet(await listIds(t, token, '/api/events', ''), [events.published, events.cancelled]);
      sameSet(await listIds(t, token, '/api/courses', ''), [courses.published]);
      const page = await t.http.get('/api/events').set(bearer(token)).expect(200);
      assert.equal(page.body.pagination.totalItems, 2);
      // a filter cannot widen the scope: asking for drafts finds none
      assert.deepEqual(await listIds(t, token, '/api/events', 'status=draft'), []);
      assert.deepEqual(await listIds(t, token, '/api/courses', 'status[]=draft&status[]=archived'), []);
    });

    it(`when a ${role} asks for a draft or an archived record by id, then it is not found (404, as if it did not exist)`, async () => {
      const token = tokens[role]!;
      expectProblem(await t.http.get(`/api/events/${events.draft}`).set(bearer(token)), 404, 'not_found');
      expectProblem(await t.http.get(`/api/courses/${courses.draft}`).set(bearer(token)), 404, 'not_found');
      expectProblem(await t.http.get(`/api/courses/${courses.archived}`).set(bearer(token)), 404, 'not_found');
      const cancelled = await t.http.get(`/api/events/${events.cancelled}`).set(bearer(token)).expect(200);
      assert.equal(cancelled.body.status, 'cancelled');
      await t.http.get(`/api/courses/${courses.published}`).set(bearer(token)).expect(200);
    });
  }

  it('when a member exports events as CSV, then the export has the same rows as the list', async () => {
    const res = await t.http.get('/api/events').set(bearer(tokens.ROLE_MEMBER!)).set('Accept', 'text/csv').expect(200);
    const ids = parseCsv(res.text)
      .slice(1)
      .map((row) => row[0]);
    sameSet(ids as string[], [events.published, events.cancelled]);
  });

  for (const role of ['ROLE_CLIENT_USER', 'ROLE_CLIENT_ADMIN', 'API_KEY'] as const) {
    it(`when ${role} reads events and courses, then every status is visible, by list and by id`, async () => {
      const token = tokens[role]!;
      sameSet(await listIds(t, token, '/api/events', ''), Object.values(events));
      sameSet(await listIds(t, token, '/api/courses', ''), Object.values(courses));
      await t.http.get(`/api/events/${events.draft}`).set(bearer(token)).expect(200);
      await t.http.get(`/api/courses/${courses.archived}`).set(bearer(token)).expect(200);
    });
  }
});
