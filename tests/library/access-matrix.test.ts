// The library's access contract, walked whole: every reader the policy tells apart x every access
// level (and a draft) x every read path. Each column says which of the world's resources a path let
// the reader have; it must equal what the policy table promises (docs/library.md): `sees` for the
// paths that show resources, `opens` for the paths that hand out content. The AI issue stands on it.
//
// Adding a column (download, stats, chat passages): append to COLUMNS with the expectation it must
// meet; `perResource` builds one from a check of a single resource.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/shared/errors.ts';
import { requireResourceAccess, resolveReader } from '../../src/modules/library/resource.access.ts';
import {
  buildAccessWorld,
  WORLD_READERS,
  WORLD_RESOURCES,
  type AccessWorld,
  type WorldReader,
  type WorldResource,
} from '../factories/resources.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

type Level = WorldResource;
const ALL: Level[] = [...WORLD_RESOURCES];
const PUBLISHED: Level[] = ['public', 'preview', 'members', 'premium', 'paid'];
const VISITOR: Level[] = ['public', 'preview', 'paid'];
const MEMBER: Level[] = ['public', 'preview', 'members', 'paid'];

/** What the policy promises: resources each reader sees (lists, search, details) and opens (files, content). */
export const EXPECTED: Record<WorldReader, { sees: Level[]; opens: Level[] }> = {
  clientAdmin: { sees: ALL, opens: ALL },
  apiKey: { sees: ALL, opens: ALL },
  clientUser: { sees: PUBLISHED, opens: PUBLISHED },
  activeMember: { sees: MEMBER, opens: ['public', 'preview', 'members'] },
  entitledMember: { sees: MEMBER, opens: ['public', 'preview', 'members', 'paid'] },
  premiumMember: { sees: PUBLISHED, opens: ['public', 'preview', 'members', 'premium'] },
  lapsedMember: { sees: VISITOR, opens: ['public'] },
  userWithoutMember: { sees: VISITOR, opens: ['public'] },
  anonymous: { sees: VISITOR, opens: ['public'] },
  otherOrganizationAdmin: { sees: [], opens: [] },
};

export interface Column {
  name: string;
  expect: 'sees' | 'opens';
  /** The world's resources this path let the reader have. */
  allowed(t: TestApp, world: AccessWorld, reader: WorldReader): Promise<Set<Level>>;
}

const keyOf = (world: AccessWorld, id: string): Level | undefined =>
  ALL.find((level) => world.resources[level].id === id);

/** The list path for a reader: the public catalogue for anonymous visitors, the API for everyone else. */
async function listed(
  t: TestApp,
  world: AccessWorld,
  reader: WorldReader,
  query: string,
): Promise<Array<{ id: string; canOpen: boolean }>> {
  const handle = world.readers[reader];
  const path = handle.headers ? '/api/resources' : `/api/public/organizations/${world.slug}/resources`;
  const request = t.http.get(`${path}?itemsPerPage=100&${query}`);
  const res = await (handle.headers ? request.set(handle.headers) : request);
  assert.equal(res.status, 200, `${reader} ${path}?${query}: ${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.body.pagination.totalItems, res.body.data.length, `${reader}: the count matches the rows`);
  return res.body.data;
}

const toSet = (world: AccessWorld, rows: Array<{ id: string }>) =>
  new Set(rows.flatMap((row) => keyOf(world, row.id) ?? []));

/** A column from a check of one resource: true = allowed, false = refused (anything else fails the test). */
export const perResource =
  (check: (t: TestApp, world: AccessWorld, reader: WorldReader, level: Level) => Promise<boolean>): Column['allowed'] =>
  async (t, world, reader) => {
    const allowed = new Set<Level>();
    for (const level of ALL) if (await check(t, world, reader, level)) allowed.add(level);
    return allowed;
  };

export const COLUMNS: Column[] = [
  {
    name: 'list',
    expect: 'sees',
    allowed: async (t, world, reader) => toSet(world, await listed(t, world, reader, 'tag=matrix')),
  },
  {
    name: 'search (q)',
    expect: 'sees',
    allowed: async (t, world, reader) => toSet(world, await listed(t, world, reader, `q=${world.keyword}`)),
  },
  {
    name: 'details',
    expect: 'sees',
    allowed: perResource(async (t, world, reader, level) => {
      const handle = world.readers[reader];
      const id = world.resources[level].id;
      const request = handle.headers
        ? t.http.get(`/api/resources/${id}`).set(handle.headers)
        : t.http.get(`/api/public/organizations/${world.slug}/resources/${id}`);
      const res = await request;
      assert.ok(
        res.status === 200 || res.status === 404,
        `${reader} details of ${level}: ${res.status} ${JSON.stringify(res.body)}`,
      );
      return res.status === 200;
    }),
  },
  {
    name: 'canOpen flag in lists',
    expect: 'opens',
    allowed: async (t, world, reader) =>
      toSet(
        world,
        (await listed(t, world, reader, 'tag=matrix')).filter((row) => row.canOpen),
      ),
  },
  {
    name: 'download',
    expect: 'opens',
    allowed: perResource(async (t, world, reader, level) => {
      const handle = world.readers[reader];
      const id = world.resources[level].id;
      const request = handle.headers
        ? t.http.get(`/api/resources/${id}/download`).set(handle.headers)
        : t.http.get(`/api/public/organizations/${world.slug}/resources/${id}/download`);
      const res = await request.buffer(true);
      assert.ok(
        [200, 403, 404].includes(res.status),
        `${reader} download of ${level}: ${res.status} ${JSON.stringify(res.body)}`,
      );
      if (res.status === 403)
        assert.equal(res.body.code, 'resource_locked', `${reader} download of ${level}: a 403 names the lock`);
      return res.status === 200;
    }),
  },
  {
    name: 'open (requireResourceAccess)',
    expect: 'opens',
    allowed: perResource(async (t, world, reader, level) => {
      const sql = t.container.sql;
      try {
        await requireResourceAccess(
          sql,
          await resolveReader(sql, world.readers[reader].actor),
          world.resources[level].id,
          'open',
        );
        return true;
      } catch (error) {
        if (error instanceof AppError && (error.code === 'not_found' || error.code === 'resource_locked')) return false;
        throw error;
      }
    }),
  },
];

/**
 * Statistics are staff's (`reports:read`): for them the stats path shows exactly what they see; every
 * other reader is refused (members 403, anonymous visitors have no stats path at all).
 */
const STATS_READERS: ReadonlySet<WorldReader> = new Set([
  'clientAdmin',
  'apiKey',
  'clientUser',
  'otherOrganizationAdmin',
]);

describe('library access matrix: stats', () => {
  let t: TestApp;
  let world: AccessWorld;

  before(async () => {
    t = await startTestApp();
    world = await buildAccessWorld(t);
  });
  after(() => t.close());

  it("when every reader asks for each resource's stats, then staff get exactly what they see and the others are refused", async () => {
    const failures: string[] = [];
    for (const reader of Object.keys(EXPECTED) as WorldReader[]) {
      const handle = world.readers[reader];
      if (!handle.headers) continue;
      for (const level of ALL) {
        const res = await t.http.get(`/api/resources/${world.resources[level].id}/stats`).set(handle.headers);
        const want = STATS_READERS.has(reader) ? (EXPECTED[reader].sees.includes(level) ? 200 : 404) : 403;
        if (res.status !== want) failures.push(`${reader} stats of ${level}: ${res.status}, want ${want}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});

describe('library access matrix', () => {
  let t: TestApp;
  let world: AccessWorld;

  before(async () => {
    t = await startTestApp();
    world = await buildAccessWorld(t);
  });
  after(() => t.close());

  for (const column of COLUMNS) {
    it(`when every reader uses "${column.name}", then each gets exactly what the policy ${column.expect === 'sees' ? 'shows' : 'opens'}`, async () => {
      const failures: string[] = [];
      for (const reader of WORLD_READERS) {
        const got = [...(await column.allowed(t, world, reader))].sort();
        const want = [...EXPECTED[reader][column.expect]].sort();
        if (JSON.stringify(got) !== JSON.stringify(want))
          failures.push(`${reader}: got [${got.join(', ')}], want [${want.join(', ')}]`);
      }
      assert.deepEqual(failures, [], `${column.name}:\n${failures.join('\n')}`);
    });
  }

  it('when a reader may see but not open, then the refusal is 403 resource_locked naming the level (not a 404)', async () => {
    const sql = t.container.sql;
    const reader = await resolveReader(sql, world.readers.activeMember.actor);
    await assert.rejects(
      requireResourceAccess(sql, reader, world.resources.paid.id, 'open'),
      (error: AppError) => error.code === 'resource_locked' && error.extras.accessLevel === 'paid',
    );
    await assert.rejects(
      requireResourceAccess(sql, reader, world.resources.premium.id, 'open'),
      (error: AppError) => error.code === 'not_found',
    );
  });
});
