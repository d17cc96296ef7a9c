// What the library left on disk and in its tables, for the "nothing is kept" checks, and the readers
// library tests log in as.
import type { Dirent } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildUser, tokenFor } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import type { TestApp } from '../setup/test-app.ts';

/** Every file under the storage root (temporary keys and half-written `.part` files included), or under `prefix`. */
export async function storedKeys(t: TestApp, prefix = ''): Promise<string[]> {
  const root = t.config.library.localRoot;
  const keys: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else keys.push(path.relative(root, full).split(path.sep).join('/'));
    }
  };
  await walk(root);
  return keys.filter((key) => key.startsWith(prefix)).sort();
}

export async function libraryRowCounts(
  t: TestApp,
  organizationId: string,
): Promise<{ resources: number; versions: number; links: number }> {
  const [row] = await t.container.sql.rows<{ resources: number; versions: number; links: number }>(
    `SELECT (SELECT count(*)::int FROM resources WHERE organization_id = $1) AS resources,
            (SELECT count(*)::int FROM resource_versions WHERE organization_id = $1) AS versions,
            (SELECT count(*)::int FROM resource_category_links WHERE organization_id = $1) AS links`,
    [organizationId],
  );
  return row!;
}

/** Polls until `check` holds (background cleanup after a cut-off upload). */
export async function until(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A storage root of the test file's own (the default DATA_DIR/files may be shared by test files). */
export async function privateStorage(): Promise<{ env: { LIBRARY_STORAGE_DIR: string }; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'guildhall-library-'));
  return { env: { LIBRARY_STORAGE_DIR: dir }, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A member reader: a ROLE_MEMBER user with an active membership of the tier, logged in (its bearer token). */
export async function activeMemberToken(
  t: TestApp,
  organizationId: string,
  tier: 'member' | 'premium' = 'member',
): Promise<string> {
  const user = await buildUser({ role: 'ROLE_MEMBER', organizationId });
  await buildMember(organizationId, { userId: user.id, status: 'active', tier });
  return tokenFor(t, user);
}
