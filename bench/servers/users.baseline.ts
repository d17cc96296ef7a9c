// Same SQL as GET /api/admin/users (one page of the datagrid and its count), on raw node:http + pg.
import { findUserPageSql } from '../../src/modules/users/user-query.repository.ts';
import { DEFAULT_USER_SORT } from '../../src/modules/users/user-query.repository.ts';
import { systemActor } from '../../src/shared/access/actor.ts';
import { scopeFor } from '../../src/shared/access/scope.ts';
import { serveBaseline } from './baseline.ts';

const everyone = scopeFor(systemActor(), 'user', 'read');

serveBaseline(async (url, pool) => {
  const page = Number(url.searchParams.get('page') ?? 1);
  const itemsPerPage = 25;
  const { rows, count } = findUserPageSql(everyone, {}, DEFAULT_USER_SORT, { page, itemsPerPage });
  const [counted, found] = await Promise.all([
    pool.query(count.text, count.values),
    pool.query(rows.text, rows.values),
  ]);
  return { data: found.rows, pagination: { page, itemsPerPage, totalItems: Number(counted.rows[0].total) } };
});
