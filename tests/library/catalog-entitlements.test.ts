import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildApiKey, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { buildResource } from '../factories/resources.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('resource entitlements', () => {
  let t: TestApp;
  let admin: Record<string, string>;
  let staff: Record<string, string>;
  let integrator: Record<string, string>;
  let buyer: Record<string, string>;
  let buyerMemberId: string;
  let organizationId: string;
  let paidId: string;
  let freeId: string;

  before(async () => {
    t = await startTestApp();
    const adminUser = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    organizationId = adminUser.organizationId!;
    admin = bearer(await tokenFor(t, adminUser));
    staff = bearer(await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_USER', organizationId })));
    integrator = bearer((await buildApiKey(organizationId)).secret);
    const buyerUser = await buildUser({ role: 'ROLE_MEMBER', organizationId });
    buyerMemberId = (await buildMember(organizationId, { userId: buyerUser.id, status: 'active' })).id;
    buyer = bearer(await tokenFor(t, buyerUser));
    paidId = (
      await buildResource(t, organizationId, {
        name: 'Salary survey',
        accessLevel: 'paid',
        price: { amount: '49', currency: 'EUR' },
      })
    ).id;
    freeId = (await buildResource(t, organizationId, { name: 'Free guide', accessLevel: 'members' })).id;
  });
  after(() => t.close());

  const canOpen = async () =>
    (await t.http.get(`/api/resources/${paidId}`).set(buyer).expect(200)).body.canOpen as boolean;

  it('when an integrator records a purchase, then the member may open the paid resource', async () => {
    assert.equal(await canOpen(), false);
    const res = await t.http
      .post(`/api/resources/${paidId}/entitlements`)
      .set(integrator)
      .send({ memberId: buyerMemberId, reference: 'order-42' })
      .expect(201);
    assert.equal(res.body.memberId, buyerMemberId);
    assert.equal(res.body.reference, 'order-42');
    assert.equal(res.body.active, true);
    assert.equal(res.headers.location, `/api/resources/${paidId}/entitlements/${res.body.id}`);
    assert.equal(await canOpen(), true);
  });

  it('when the member already holds an active entitlement, then 409 already_exists', async () => {
    expectProblem(
      await t.http.post(`/api/resources/${paidId}/entitlements`).set(admin).send({ memberId: buyerMemberId }),
      409,
      'already_exists',
    );
  });

  it("when the resource is not paid, or the member is another organization's, then 422", async () => {
    const body = expectProblem(
      await t.http.post(`/api/resources/${freeId}/entitlements`).set(admin).send({ memberId: buyerMemberId }),
      422,
      'unprocessable',
    );
    assert.equal(body.accessLevel, 'members');
    const stranger = await buildMember((await buildOrganization()).id);
    expectProblem(
      await t.http.post(`/api/resources/${paidId}/entitlements`).set(admin).send({ memberId: stranger.id }),
      422,
      'unprocessable',
    );
  });

  it('when a client user or a member records one, then 403', async () => {
    expectProblem(
      await t.http.post(`/api/resources/${paidId}/entitlements`).set(staff).send({ memberId: buyerMemberId }),
      403,
      'forbidden',
    );
    expectProblem(await t.http.get(`/api/resources/${paidId}/entitlements`).set(buyer), 403, 'forbidden');
  });

  it('when an entitlement is revoked, then it stays listed as revoked and the member can no longer open the resource', async () => {
    const list = await t.http.get(`/api/resources/${paidId}/entitlements`).set(admin).expect(200);
    assert.equal(list.body.pagination.totalItems, 1);
    const id = list.body.data[0].id as string;
    await t.http.delete(`/api/resources/${paidId}/entitlements/${id}`).set(integrator).expect(204);
    await t.http.delete(`/api/resources/${paidId}/entitlements/${id}`).set(integrator).expect(204);
    assert.equal(await canOpen(), false);
    const after = await t.http.get(`/api/resources/${paidId}/entitlements?active=false`).set(admin).expect(200);
    assert.equal(after.body.data[0].active, false);
    assert.ok(after.body.data[0].revokedAt);
    assert.equal(
      (
        await t.http
          .get(`/api/resources/${paidId}/entitlements?active=true&memberId=${buyerMemberId}`)
          .set(admin)
          .expect(200)
      ).body.pagination.totalItems,
      0,
    );
    // a new purchase after a revocation is allowed
    await t.http
      .post(`/api/resources/${paidId}/entitlements`)
      .set(integrator)
      .send({ memberId: buyerMemberId })
      .expect(201);
    assert.equal(await canOpen(), true);
    expectProblem(
      await t.http.delete(`/api/resources/${paidId}/entitlements/00000000-0000-4000-8000-000000000000`).set(admin),
      404,
      'not_found',
    );
    const actions = await t.container.sql.rows<{ action: string }>(
      `SELECT action FROM audit_log WHERE action LIKE 'resource_entitlement.%' ORDER BY id`,
    );
    assert.deepEqual(
      actions.map((a) => a.action),
      ['resource_entitlement.granted', 'resource_entitlement.revoked', 'resource_entitlement.granted'],
    );
  });
});
