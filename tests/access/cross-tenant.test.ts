// Generated from openapi.yaml: every operation that addresses a record by `{id}` and every list, called
// with another organization's credential (a client admin: every tenant permission). A record of
// organization A answers 404 problem+json to organization B, and no list of B shows a row of A.
// A new operation is walked as soon as it is in the contract; a new collection fails here until it
// has a fixture below, and an operation that is not tenant-scoped must be listed with its reason.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Resource } from '../../src/modules/library/resource.model.ts';
import { WebhookDelivery } from '../../src/modules/webhooks/webhook-delivery.model.ts';
import { WebhookEvent } from '../../src/modules/webhooks/webhook-event.model.ts';
import { WebhookSubscription } from '../../src/modules/webhooks/webhook-subscription.model.ts';
import { bearer, buildApiKey, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildCourse, buildEvent, buildMember } from '../factories/records.ts';
import { buildCategory as buildCatalogCategory } from '../factories/resources.ts';
import { ResourceEntitlement } from '../../src/modules/library/entitlement.model.ts';
import { buildCategory, recordEvents } from '../factories/resource-usage.ts';
import { buildSourceResource } from '../factories/generation-sources.ts';
import { expectProblem } from '../setup/problem.ts';
import { SsoConnection } from '../../src/modules/sso/sso-connection.model.ts';
import { Directory } from '../../src/modules/directory/directory.model.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { isList, operations, type Operation } from './contract-walk.ts';

/** Operations outside any one organization's rows, and why. */
const NOT_TENANT_SCOPED: ReadonlyArray<[RegExp, string]> = [
  [/^\/(health|ready)$/, 'process health, no records'],
  [/^\/api\/openapi\.json$/, 'the contract itself'],
  [/^\/api\/auth\/(?!sso\/connections)/, "the caller's own credential, session and MFA"],
  [
    /^\/scim\/v2\//,
    "a directory's SCIM token names its directory: another directory's ids are 404 (tests/directory/scim-tenancy.test.ts)",
  ],
  [
    /^\/webhooks\/idp$/,
    "the identity service's signed events, routed by their directory_id (tests/directory/idp-events.test.ts)",
  ],
  [
    /^\/auth\/saml\//,
    "a SAML connection's public addresses: IdPs read its metadata and post signed assertions to it (tests/sso)",
  ],
  [
    /^\/api\/admin\//,
    'platform administration: platform admins act across organizations (users, impersonation, jobs, outbox)',
  ],
  [/^\/api\/webhooks\/event-types$/, 'the catalog of event kinds, the same for everyone'],
  [
    /^\/api\/public\//,
    "the anonymous public catalogue, addressed by the organization's slug (tests/library/catalog-public.test.ts)",
  ],
];

type PathValues = Record<string, string>;

/** Records of organization A for each collection, by path parameter name. */
const FIXTURES: Record<string, (organizationId: string, t: TestApp) => Promise<PathValues>> = {
  '/api/members': async (organizationId) => ({ id: (await buildMember(organizationId)).id }),
  '/api/events': async (organizationId) => ({ id: (await buildEvent(organizationId, { status: 'published' })).id }),
  '/api/courses': async (organizationId) => ({ id: (await buildCourse(organizationId, { status: 'published' })).id }),
  '/api/api-keys': async (organizationId) => ({ id: (await buildApiKey(organizationId)).apiKey.id }),
  // before /api/resources: the first matching prefix names a path's collection
  '/api/resources/categories': async (organizationId) => ({ id: (await buildCatalogCategory(organizationId)).id }),
  // one library resource of A for every operation under /api/resources/{id}: its first version with
  // extracted text (ingestion, generated content), an entitlement, a category, and a download today by a
  // user of A (its stats and every report of A show it)
  '/api/resources': async (organizationId) => {
    const { resource, version } = await buildSourceResource(organizationId, { accessLevel: 'public' });
    const member = await buildMember(organizationId);
    const entitlement = await ResourceEntitlement.create({
      organizationId,
      resourceId: resource.id,
      memberId: member.id,
    });
    const sequelize = ResourceEntitlement.sequelize!;
    const categoryId = await buildCategory(sequelize, organizationId, `Fixture ${randomUUID().slice(0, 8)}`, {
      resourceIds: [resource.id],
    });
    const reader = await buildUser({ role: 'ROLE_MEMBER', organizationId });
    await recordEvents(sequelize, organizationId, [
      { resourceId: resource.id, kind: 'download', at: new Date(), userId: reader.id },
    ]);
    const prefix = `orgs/${organizationId}/resources/${resource.id}/`;
    await resource.update({ thumbnailKey: `${prefix}thumb.webp`, featuredImageKey: `${prefix}featured` });
    return {
      id: resource.id,
      version: String(version.version),
      entitlementId: entitlement.id,
      categoryId,
      userId: reader.id,
    };
  },
  '/api/uploads': async (organizationId) => {
    const uploadId = randomUUID();
    await Resource.sequelize!.query(
      `INSERT INTO resource_uploads (id, organization_id, creator_type, creator_id, file_name, size_bytes, expires_at) VALUES ($1, $2, 'api_key', 'k', 'a.pdf', 10, now() + interval '1 hour')`,
      { bind: [uploadId, organizationId] },
    );
    return { uploadId };
  },
  // the spec reads SSO connections with POST under /api/auth/sso; they are written under /api/sso
  '/api/auth/sso/connections': ssoConnectionFixture,
  '/api/sso/connections': ssoConnectionFixture,
  '/api/directories': async (organizationId) => {
    const directory = await Directory.create({ organizationId, name: 'Fixture directory', provider: 'scim' });
    return { id: directory.id };
  },
  '/api/webhooks': async (organizationId) => {
    const subscription = await WebhookSubscription.create({
      organizationId,
      url: 'https://example.test/hook',
      description: null,
      eventTypes: ['member.created'],
      secretSealed: 'sealed',
    });
    const event = await WebhookEvent.create({
      id: `msg_${randomUUID()}`,
      organizationId,
      type: 'member.created',
      body: '{}',
      occurredAt: new Date(),
    });
    const delivery = await WebhookDelivery.create({
      organizationId,
      subscriptionId: subscription.id,
      eventId: event.id,
      nextAttemptAt: null,
      status: 'failed',
    });
    return { id: subscription.id, deliveryId: delivery.id };
  },
};

async function ssoConnectionFixture(organizationId: string): Promise<PathValues> {
  const connection = await SsoConnection.create({
    organizationId,
    name: 'Fixture SSO',
    protocol: 'identity_service',
    settings: { connection: 'conn_fixture' },
  });
  return { id: connection.id };
}

/** A chat conversation of organization A's admin (history is the asker's own) and a low-confidence question (content gaps). */
async function chatFixture(organizationId: string): Promise<PathValues> {
  const sequelize = WebhookEvent.sequelize!;
  const [[admin]] = (await sequelize.query(
    `SELECT id FROM users WHERE organization_id = $1 AND role = 'ROLE_CLIENT_ADMIN' LIMIT 1`,
    { bind: [organizationId] },
  )) as [Array<{ id: string }>, unknown];
  const question = `gap question ${randomUUID()}`;
  const [[conversation]] = (await sequelize.query(
    `INSERT INTO chat_conversations (organization_id, asker_type, asker_id, title) VALUES ($1, 'user', $2, $3) RETURNING id`,
    { bind: [organizationId, admin!.id, question] },
  )) as [Array<{ id: string }>, unknown];
  await sequelize.query(
    `INSERT INTO chat_turns (conversation_id, organization_id, ordinal, query, answer, mode, answered, confidence) VALUES ($1, $2, 1, $3, 'no answer', 'search', false, 0.1)`,
    { bind: [conversation!.id, organizationId, question] },
  );
  return { conversationId: conversation!.id, question };
}
FIXTURES['/api/resources/chat/history'] = chatFixture;
FIXTURES['/api/resources/reports/content-gaps'] = chatFixture;

const exception = (operation: Operation) => NOT_TENANT_SCOPED.find(([pattern]) => pattern.test(operation.template));
const collectionOf = (template: string) =>
  Object.keys(FIXTURES).find((prefix) => template === prefix || template.startsWith(`${prefix}/`));
const fill = (template: string, values: PathValues) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => {
    assert.ok(values[name], `no fixture value for {${name}} in ${template}`);
    return values[name]!;
  });

describe('tenant isolation, walked from the contract', () => {
  let t: TestApp;
  let tokenA: string;
  let tokenB: string;
  let organizationA: string;
  const values: Record<string, PathValues> = {};
  const scoped = operations().filter((operation) => !exception(operation));
  const addressed = scoped.filter((operation) => operation.template.includes('{'));
  const lists = scoped.filter(
    (operation) => !operation.template.includes('{') && operation.method === 'get' && isList(operation),
  );

  before(async () => {
    t = await startTestApp();
    organizationA = (await buildOrganization()).id;
    const organizationB = (await buildOrganization()).id;
    tokenA = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: organizationA }));
    tokenB = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: organizationB }));
    for (const [collection, build] of Object.entries(FIXTURES)) values[collection] = await build(organizationA, t);
  });
  after(() => t.close());

  it('when the contract is read, then every tenant-scoped operation with an {id} and every list has a fixture', () => {
    const missing = [...addressed, ...lists]
      .filter((operation) => !collectionOf(operation.template))
      .map((o) => `${o.method.toUpperCase()} ${o.template}`);
    assert.deepEqual(missing, [], `add a fixture (or a NOT_TENANT_SCOPED reason) for:\n${missing.join('\n')}`);
    assert.ok(addressed.length >= 15, `expected the walk to find the {id} operations, found ${addressed.length}`);
    assert.ok(lists.length >= 5, `expected the walk to find the lists, found ${lists.length}`);
  });

  it("when another organization's admin addresses a record by id, then every operation answers 404 problem+json", async () => {
    for (const operation of addressed) {
      const url = fill(operation.template, values[collectionOf(operation.template)!]!);
      const request = t.http[operation.method](url).set(bearer(tokenB)).set(operation.headers);
      const res = await (operation.body === undefined ? request : request.send(operation.body as object));
      assert.equal(
        res.status,
        404,
        `${operation.method.toUpperCase()} ${operation.template}: ${res.status} ${JSON.stringify(res.body)}`,
      );
      expectProblem(res, 404, 'not_found');
      assert.ok(!JSON.stringify(res.body).includes(organizationA), `${operation.template} names organization A`);
    }
  });

  it("when another organization lists, then no row of organization A appears (and A's own lists show them)", async () => {
    // record ids only: a path value such as a version number (`1`) would match any text
    const idsOfA = Object.values(values)
      .flatMap(Object.values)
      .filter((value) => /^[0-9a-f-]{36}$/.test(value));
    for (const operation of lists) {
      const theirs = await t.http.get(operation.template).set(bearer(tokenB));
      assert.equal(theirs.status, 200, `${operation.template}: ${theirs.status} ${JSON.stringify(theirs.body)}`);
      const text = JSON.stringify(theirs.body);
      for (const id of [organizationA, ...idsOfA])
        assert.ok(!text.includes(id), `${operation.template} shows ${id} of organization A`);
      const ours = await t.http.get(operation.template).set(bearer(tokenA)).expect(200);
      const own = Object.values(values[collectionOf(operation.template)!]!);
      assert.ok(
        own.some((id) => JSON.stringify(ours.body).includes(id)),
        `${operation.template}: organization A does not see its own record`,
      );
    }
  });

  it("when the walk is over, then organization A's records are untouched and its own admin still reads each one", async () => {
    for (const operation of addressed.filter((o) => o.method === 'get' && /^\/api\/[\w-]+\/\{id\}$/.test(o.template))) {
      await t.http
        .get(fill(operation.template, values[collectionOf(operation.template)!]!))
        .set(bearer(tokenA))
        .expect(200);
    }
    assert.equal((await WebhookDelivery.findByPk(values['/api/webhooks']!.deliveryId))?.status, 'failed');
  });
});
