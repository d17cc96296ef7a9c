// The download's remembered access decision (src/modules/library/file-access.cache.ts): every change
// made through the API that can alter a decision takes effect on the very next request; a change made
// behind this process's back (another instance) within BRIEF_CACHE_TTL_MS; one reader's decision is
// never another's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BRIEF_CACHE_TTL_MS } from '../../src/shared/brief-cache.ts';
import { bearer, buildApiKey, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { buildResource } from '../factories/resources.ts';
import { binaryBody } from '../setup/body-parsers.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { fixture } from './fixtures.ts';
import { privateStorage } from './library-helpers.ts';

describe('library downloads: the remembered access decision', () => {
  let t: TestApp;
  let storage: Awaited<ReturnType<typeof privateStorage>>;
  let organizationId: string;
  let admin: Record<string, string>;
  let integrator: Record<string, string>;
  let reader: Record<string, string>;
  let memberId: string;
  let memberUserId: string;

  before(async () => {
    storage = await privateStorage();
    t = await startTestApp({ env: storage.env });
    organizationId = (await buildOrganization()).id;
    admin = bearer(await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId })));
    integrator = bearer((await buildApiKey(organizationId)).secret);
    const user = await buildUser({ role: 'ROLE_MEMBER', organizationId });
    memberUserId = user.id;
    memberId = (await buildMember(organizationId, { userId: user.id, status: 'active', tier: 'member' })).id;
    reader = bearer(await tokenFor(t, user));
  });
  after(async () => {
    await t.close();
    await storage.remove();
  });

  const download = (id: string, as = reader) =>
    t.http.get(`/api/resources/${id}/download`).set(as).buffer(true).parse(binaryBody);
  /** The same request when it is refused (a problem+json body, parsed as JSON). */
  const refused = (id: string, as = reader) => t.http.get(`/api/resources/${id}/download`).set(as);
  const setMemberStatus = (status: string) =>
    t.http
      .put(`/api/members/${memberId}`)
      .set(admin)
      .send({
        firstName: 'Pat',
        lastName: 'Reader',
        email: `reader-${memberId.slice(0, 8)}@example.test`,
        status,
        userId: memberUserId,
      })
      .expect(200);

  it('when a resource the member opened is raised to premium, unpublished or deleted through the API, then the very next download says so', async () => {
    const { id } = await buildResource(t, organizationId, { accessLevel: 'members' });
    await download(id).expect(200);
    // premium resources are hidden from members of the member tier: 404, not 403
    await t.http.put(`/api/resources/${id}`).set(admin).send({ accessLevel: 'premium' }).expect(200);
    expectProblem(await refused(id), 404, 'not_found');
    await t.http.put(`/api/resources/${id}`).set(admin).send({ accessLevel: 'members' }).expect(200);
    await download(id).expect(200);
    await t.http.put(`/api/resources/${id}`).set(admin).send({ status: 'draft' }).expect(200);
    expectProblem(await refused(id), 404, 'not_found');
    await t.http.put(`/api/resources/${id}`).set(admin).send({ status: 'published' }).expect(200);
    await download(id).expect(200);
    await t.http.delete(`/api/resources/${id}`).set(admin).expect(204);
    expectProblem(await refused(id), 404, 'not_found');
  });

  it('when the member record lapses through the API, then the very next download is refused, and allowed again once it is active', async () => {
    // a preview: a lapsed member still sees it, so the refusal is the 403 that names the membership
    const { id } = await buildResource(t, organizationId, { accessLevel: 'preview' });
    await download(id).expect(200);
    await setMemberStatus('lapsed');
    expectProblem(await refused(id), 403, 'resource_locked');
    await setMemberStatus('active');
    await download(id).expect(200);
  });

  it('when a purchase is recorded and then revoked, then the very next download follows each', async () => {
    const { id } = await buildResource(t, organizationId, { accessLevel: 'paid' });
    expectProblem(await refused(id), 403, 'resource_locked');
    const granted = await t.http
      .post(`/api/resources/${id}/entitlements`)
      .set(integrator)
      .send({ memberId })
      .expect(201);
    await download(id).expect(200);
    await t.http.delete(`/api/resources/${id}/entitlements/${granted.body.id}`).set(integrator).expect(204);
    expectProblem(await refused(id), 403, 'resource_locked');
  });

  it('when a new version is uploaded, then the very next download is the new file', async () => {
    const { id } = await buildResource(t, organizationId, { accessLevel: 'members' });
    const first = await download(id).expect(200);
    const png = await fixture('png');
    await t.http.put(`/api/resources/${id}`).set(admin).attach('file', png, 'chart.png').expect(200);
    const second = await download(id).expect(200);
    assert.notEqual(second.headers.etag, first.headers.etag);
    assert.deepEqual(second.body, png);
  });

  it('when another instance unpublishes the resource (a change this process is not told of), then downloads stop within the bound, not later', async () => {
    const { id } = await buildResource(t, organizationId, { accessLevel: 'members' });
    await download(id).expect(200);
    await t.container.sql.query(`UPDATE resources SET status = 'draft', published_at = NULL WHERE id = $1`, [id]);
    // remembered: this is the query a video player's every seek no longer makes
    await download(id).expect(200);
    t.clock.advance(BRIEF_CACHE_TTL_MS);
    expectProblem(await refused(id), 404, 'not_found');
  });

  it('when a manager opens a draft, then a member asking for the same draft still gets 404', async () => {
    const { id } = await buildResource(t, organizationId, { accessLevel: 'public', status: 'draft' });
    await download(id, admin).expect(200);
    expectProblem(await refused(id), 404, 'not_found');
  });
});
