import { defineModule } from '../../shared/module-manifest.ts';
import { auditModule } from '../audit/index.ts';
import { crudRoutes } from '../crud/index.ts';
import { CrudService } from '../crud/index.ts';
import { memberEvents } from './member.domain-events.ts';
import { memberResource } from './member.definition.ts';
import { MemberAccounts } from './member-accounts.ts';
import { Member } from './member.model.ts';

export const membersModule = defineModule({
  name: 'members',
  uses: [auditModule],
  models: { Member },
  services: ({ platform: { db, sql, clock, domainEvents }, uses: { audit } }) => {
    const members = new CrudService(memberResource, {
      sequelize: db.sequelize,
      sql,
      clock,
      audit,
      publisher: domainEvents,
    });
    return { members, memberAccounts: new MemberAccounts(members, { sql, publisher: domainEvents }) };
  },
  routes: {
    api:
      ({ services, idempotency }) =>
      (router) =>
        crudRoutes(router, services.members, idempotency),
  },
  events: memberEvents,
  // the member record stays, linked, when its account is deleted: history of the person, not the user's to give away
  ownedUserData: [
    {
      type: 'member_records',
      description: 'Member record linked to this account (kept; a permanent deletion unlinks it)',
      table: 'members',
      column: 'user_id',
      transferable: false,
      // a record links a user of its own organization only (the members service checks it on write)
      unlinkOutside: 'organization_id',
    },
  ],
  permissions: ['members:read', 'members:write'],
});
