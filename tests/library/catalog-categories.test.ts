import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildApiKey, buildUser, tokenFor } from '../factories/index.ts';
import { buildResource } from '../factories/resources.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { activeMemberToken } from './library-helpers.ts';

describe('resource categories', () => {
  let t: TestApp;
  let admin: Record<string, string>;
  let staff: Record<string, string>;
  let member: Record<string, string>;
  let apiKey: Record<string, string>;
  let organizationId: string;

  const create = (body: object, headers = admin) => t.http.post('/api/resources/categories').set(headers).send(body);
  const listNames = async (headers: Record<string, string>, query = '') =>
    (
      (await t.http.get(`/api/resources/categories${query}`).set(headers).expect(200)).body.data as Array<{
        name: string;
      }>
    ).map((c) => c.name);

  before(async () => {
    t = await startTestApp();
    const adminUser = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    organizationId = adminUser.organizationId!;
    admin = bearer(await tokenFor(t, adminUser));
    staff = bearer(await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_USER', organizationId })));
    member = bearer(await activeMemberToken(t, organizationId));
    apiKey = bearer((await buildApiKey(organizationId)).secret);
  });
  after(() => t.close());

  it('when a client admin creates categories, then each goes last with its icon, and the audit trail has it', async () => {
    const res = await create({ name: 'Governance', description: 'Bylaws and minutes', icon: 'briefcase' }).expect(201);
    assert.equal(res.headers.location, `/api/resources/categories/${res.body.id}`);
    assert.equal(res.body.icon, 'briefcase');
    assert.equal(res.body.archived, false);
    assert.equal(res.body.resourceCount, 0);
    const second = await create({ name: 'Events' }, apiKey).expect(201);
    assert.ok(second.body.position > res.body.position);
    const audit = await t.container.sql.rows<{ action: string }>('SELECT action FROM audit_log WHERE target_id = $1', [
      res.body.id,
    ]);
    assert.deepEqual(
      audit.map((a) => a.action),
      ['resource_category.created'],
    );
  });

  it('when a name is reused in another case, then 409 already_exists names the field', async () => {
    const body = expectProblem(await create({ name: 'GOVERNANCE' }), 409, 'already_exists');
    assert.deepEqual(
      body.errors.map((e: { field: string }) => e.field),
      ['name'],
    );
  });

  it('when a client user or a member creates a category, then 403', async () => {
    expectProblem(await create({ name: 'Nope' }, staff), 403, 'forbidden');
    expectProblem(await create({ name: 'Nope' }, member), 403, 'forbidden');
  });

  it('when the icon is not one of the set, then 400', async () => {
    expectProblem(await create({ name: 'Odd', icon: 'skull' }), 400, 'validation_failed');
  });

  it('when categories are reordered, then lists follow the new positions (others after, in their order)', async () => {
    await create({ name: 'Training' }).expect(201);
    const all = (await t.http.get('/api/resources/categories').set(admin).expect(200)).body.data as Array<{
      id: string;
      name: string;
    }>;
    const id = (name: string) => all.find((c) => c.name === name)!.id;
    const res = await t.http
      .post('/api/resources/categories/reorder')
      .set(admin)
      .send({ ids: [id('Training'), id('Governance')] })
      .expect(200);
    assert.deepEqual(
      res.body.data.map((c: { name: string }) => c.name),
      ['Training', 'Governance', 'Events'],
    );
    assert.deepEqual(
      res.body.data.map((c: { position: number }) => c.position),
      [1, 2, 3],
    );
    assert.deepEqual(await listNames(member), ['Training', 'Governance', 'Events']);
  });

  it('when reorder names an unknown or repeated id, then 422 or 400 and nothing moves', async () => {
    const before = await listNames(admin);
    expectProblem(
      await t.http
        .post('/api/resources/categories/reorder')
        .set(admin)
        .send({ ids: ['00000000-0000-4000-8000-000000000000'] }),
      422,
      'unprocessable',
    );
    const first = (await t.http.get('/api/resources/categories').set(admin)).body.data[0].id as string;
    expectProblem(
      await t.http
        .post('/api/resources/categories/reorder')
        .set(admin)
        .send({ ids: [first, first] }),
      400,
      'validation_failed',
    );
    expectProblem(
      await t.http
        .post('/api/resources/categories/reorder')
        .set(member)
        .send({ ids: [first] }),
      403,
      'forbidden',
    );
    assert.deepEqual(await listNames(admin), before);
  });

  it('when a category is renamed, then PUT replaces name, description and icon', async () => {
    const id = (await create({ name: 'Webinars', icon: 'video', description: 'Recorded' }).expect(201)).body
      .id as string;
    const res = await t.http
      .put(`/api/resources/categories/${id}`)
      .set(admin)
      .send({ name: 'Webinar recordings' })
      .expect(200);
    assert.equal(res.body.name, 'Webinar recordings');
    assert.equal(res.body.icon, null);
    assert.equal(res.body.description, null);
    expectProblem(
      await t.http.put(`/api/resources/categories/${id}`).set(admin).send({ name: 'governance' }),
      409,
      'already_exists',
    );
    expectProblem(await t.http.put(`/api/resources/categories/${id}`).set(staff).send({ name: 'x' }), 403, 'forbidden');
    expectProblem(
      await t.http.put('/api/resources/categories/00000000-0000-4000-8000-000000000000').set(admin).send({ name: 'x' }),
      404,
      'not_found',
    );
  });

  it('when a category is archived, then members no longer see it, its resources stay, and unarchive brings it back', async () => {
    const id = (await create({ name: 'Archive me' }).expect(201)).body.id as string;
    const resource = await buildResource(t, organizationId, { name: 'Kept resource', categoryIds: [id] });
    const archived = await t.http.post(`/api/resources/categories/${id}/archive`).set(admin).expect(200);
    assert.equal(archived.body.archived, true);
    assert.ok(archived.body.archivedAt);
    assert.equal(archived.body.resourceCount, 1);
    assert.ok(!(await listNames(member)).includes('Archive me'));
    assert.ok(!(await listNames(admin)).includes('Archive me'));
    assert.deepEqual(await listNames(admin, '?archived=only'), ['Archive me']);
    assert.equal((await listNames(admin, '?archived=include')).at(-1), 'Archive me');
    expectProblem(await t.http.get('/api/resources/categories?archived=include').set(member), 403, 'forbidden');
    // the resource keeps its link (history): shown to managers, hidden from members (in the details and the list)
    const details = await t.http.get(`/api/resources/${resource.id}`).set(admin).expect(200);
    assert.deepEqual(details.body.categories, [{ id, name: 'Archive me' }]);
    assert.deepEqual((await t.http.get(`/api/resources/${resource.id}`).set(member).expect(200)).body.categories, []);
    const listed = await t.http.get('/api/resources?itemsPerPage=100').set(member).expect(200);
    assert.deepEqual(listed.body.data.find((r: { id: string }) => r.id === resource.id).categories, []);
    // the resource saved again as it was keeps its archived link; another cannot join the archived category
    await t.http
      .put(`/api/resources/${resource.id}`)
      .set(admin)
      .send({ name: 'Kept resource', categoryIds: [id] })
      .expect(200);
    assert.deepEqual((await t.http.get(`/api/resources/${resource.id}`).set(admin).expect(200)).body.categories, [
      { id, name: 'Archive me' },
    ]);
    const outsider = await buildResource(t, organizationId, { name: 'Not in it' });
    expectProblem(
      await t.http
        .put(`/api/resources/${outsider.id}`)
        .set(admin)
        .send({ categoryIds: [id] }),
      422,
      'unprocessable',
    );
    const again = await t.http.post(`/api/resources/categories/${id}/archive`).set(admin).expect(200);
    assert.equal(again.body.archivedAt, archived.body.archivedAt);
    const back = await t.http.post(`/api/resources/categories/${id}/unarchive`).set(admin).expect(200);
    assert.equal(back.body.archived, false);
    assert.ok((await listNames(member)).includes('Archive me'));
    assert.deepEqual((await t.http.get(`/api/resources/${resource.id}`).set(member).expect(200)).body.categories, [
      { id, name: 'Archive me' },
    ]);
    expectProblem(await t.http.post(`/api/resources/categories/${id}/archive`).set(staff), 403, 'forbidden');
    const actions = await t.container.sql.rows<{ action: string }>(
      'SELECT action FROM audit_log WHERE target_id = $1 ORDER BY id',
      [id],
    );
    assert.deepEqual(
      actions.map((a) => a.action),
      ['resource_category.created', 'resource_category.archived', 'resource_category.unarchived'],
    );
  });

  it('when members list categories, then resourceCount counts only what they see', async () => {
    const id = (await create({ name: 'Counted' }).expect(201)).body.id as string;
    await buildResource(t, organizationId, { categoryIds: [id], accessLevel: 'members' });
    await buildResource(t, organizationId, { categoryIds: [id], accessLevel: 'premium' });
    await buildResource(t, organizationId, { categoryIds: [id], status: 'draft' });
    const count = async (headers: Record<string, string>) =>
      (
        (await t.http.get('/api/resources/categories?itemsPerPage=100').set(headers).expect(200)).body.data as Array<{
          name: string;
          resourceCount: number;
        }>
      ).find((c) => c.name === 'Counted')!.resourceCount;
    assert.equal(await count(member), 1);
    assert.equal(await count(staff), 2);
    assert.equal(await count(admin), 3);
  });
});
