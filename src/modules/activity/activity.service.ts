import type { Sequelize } from 'sequelize';
import type { Actor } from '../../shared/access/actor.ts';
import { scopeFor } from '../../shared/access/scope.ts';
import { errors } from '../../shared/errors.ts';
import { pageOf, type Page, type PageRequest } from '../../shared/pagination.ts';
import { findUserRow } from '../users/index.ts';
import { findActivity, type ActivityFilter, type ActivityRow } from './activity.repository.ts';

/** GET /api/admin/users/{id}/activity. Soft-deleted users keep their activity. */
export class ActivityService {
  constructor(private readonly deps: { sequelize: Sequelize }) {}

  async forUser(actor: Actor, userId: string, filter: ActivityFilter, page: PageRequest): Promise<Page<ActivityRow>> {
    const scope = scopeFor(actor, 'user', 'read');
    if (!(await findUserRow(this.deps.sequelize, userId, { includeDeleted: true })))
      throw errors.notFound('User', userId);
    const { rows, total } = await findActivity(this.deps.sequelize, scope, userId, filter, page);
    return pageOf(rows, total, page);
  }
}
