import assert from 'node:assert/strict';
import type { Sequelize } from 'sequelize';
import { bearer } from '../factories/index.ts';
import type { TestApp } from '../setup/test-app.ts';

/** GETs a list and returns the ids in the order answered (asserting 200). */
export async function listIds(t: TestApp, token: string, path: string, query: string): Promise<string[]> {
  const res = await t.http.get(`${path}?${query}`).set(bearer(token));
  assert.equal(res.status, 200, `${path}?${query}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.data as Array<{ id: string }>).map((item) => item.id);
}

/** Same members, any order. */
export function sameSet(actual: string[], expected: string[], message?: string): void {
  assert.deepEqual([...actual].sort(), [...expected].sort(), message);
}

/** Moves a record's timestamps (the ORM always stamps now). */
export async function backdate(
  sequelize: Sequelize,
  table: 'members' | 'events' | 'courses',
  id: string,
  at: string,
  column: 'created_at' | 'updated_at' | 'both' = 'both',
): Promise<void> {
  const set = column === 'both' ? 'created_at = $1, updated_at = $1' : `${column} = $1`;
  await sequelize.query(`UPDATE ${table} SET ${set} WHERE id = $2`, { bind: [at, id] });
}
