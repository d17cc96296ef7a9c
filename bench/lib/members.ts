// The members scenarios' data: one enterprise organization, its API key, and `count` members in one
// statement (varied last names, 70% active, a membership type and some custom fields each).
import { randomUUID } from 'node:crypto';
import { randomToken, sha256 } from '../../src/shared/crypto.ts';
import type { BenchDatabase } from './database.ts';

export async function seedMembers(
  db: BenchDatabase,
  count: number,
): Promise<{ organizationId: string; apiKey: string }> {
  const organizationId = randomUUID();
  const apiKey = `gh_live_${randomToken(24)}`;
  await db.pool.query(`INSERT INTO organizations (id, name, slug, plan) VALUES ($1, 'Bench', 'bench', 'enterprise')`, [
    organizationId,
  ]);
  await db.pool.query(`INSERT INTO api_keys (organization_id, name, prefix, key_hash) VALUES ($1, 'bench', $2, $3)`, [
    organizationId,
    apiKey.slice(0, 12),
    sha256(apiKey),
  ]);
  const seeded = performance.now();
  await db.pool.query(
    `INSERT INTO members (organization_id, first_name, last_name, email, phone, tier, membership_type, status, joined_at, renewal_date, custom_fields)
     SELECT $1, initcap(substr(md5('f' || g), 1, 7)), initcap(substr(md5('l' || g), 1, 9)), 'member' || g || '@example.test',
            '+1 555 ' || lpad((g % 10000)::text, 4, '0'),
            CASE WHEN g % 10 = 0 THEN 'premium' ELSE 'member' END,
            (ARRAY['Individual', 'Student', 'Corporate', 'Retired'])[1 + g % 4],
            (ARRAY['active', 'active', 'active', 'active', 'active', 'active', 'active', 'pending', 'lapsed', 'cancelled'])[1 + g % 10],
            date '2015-01-01' + (g % 3650), date '2026-01-01' + (g % 365), jsonb_build_object('chapter', 'Chapter ' || (g % 40))
       FROM generate_series(1, $2::int) g`,
    [organizationId, count],
  );
  await db.pool.query('VACUUM ANALYZE members');
  console.log(`seeded ${count} members in ${Math.round(performance.now() - seeded)} ms`);

  return { organizationId, apiKey };
}
