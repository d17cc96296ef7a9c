import { User } from '../users/index.ts';
import { errors } from '../../shared/errors.ts';
import { defineResource } from '../crud/index.ts';
import { isCalendarDate } from '../crud/index.ts';
import { toMemberDto, type MemberDto, type MemberInput } from './member.mapper.ts';
import { Member } from './member.model.ts';

export const MEMBER_STATUSES = ['active', 'pending', 'lapsed', 'cancelled'] as const;
export const MEMBER_TIERS = ['member', 'premium'] as const;

export const memberResource = defineResource<Member, MemberDto, MemberInput>({
  name: 'member',
  label: 'Member',
  path: '/api/members',
  model: Member,
  kind: 'member',
  fields: {
    email: { type: 'email', filter: 'exact', caseInsensitive: true },
    status: { type: 'string', filter: 'exact', values: MEMBER_STATUSES },
    tier: { type: 'string', filter: 'exact', values: MEMBER_TIERS },
    membershipType: { type: 'string', filter: 'exact' },
    userId: { type: 'uuid', filter: 'exact' },
    firstName: { type: 'string', filter: 'partial', sortable: true },
    lastName: { type: 'string', filter: 'partial', sortable: true },
    joinedAt: { type: 'date', filter: 'date', sortable: true },
    renewalDate: { type: 'date', filter: 'date', sortable: true },
    createdAt: { type: 'datetime', filter: 'date', sortable: true },
    updatedAt: { type: 'datetime', filter: 'date', sortable: true },
  },
  writable: [
    'firstName',
    'lastName',
    'email',
    'phone',
    'tier',
    'membershipType',
    'status',
    'joinedAt',
    'renewalDate',
    'userId',
    'customFields',
  ],
  readOnly: ['id', 'organizationId', 'createdAt', 'updatedAt'],
  defaultOrder: [
    { field: 'lastName', direction: 'asc' },
    { field: 'firstName', direction: 'asc' },
  ],
  uniqueIndexes: { members_email_unique: 'email', members_user_unique: 'userId' },
  async toAttributes(input, { organizationId, transaction }) {
    const impossible = (['joinedAt', 'renewalDate'] as const).filter(
      (field) => input[field] && !isCalendarDate(input[field]!),
    );
    if (impossible.length)
      throw errors.validation(impossible.map((field) => ({ field, message: 'is not a calendar date' })));
    const userId = input.userId ?? null;
    // A member may be linked only to a platform user of the same organization.
    if (userId && !(await User.findOne({ where: { id: userId, organizationId }, attributes: ['id'], transaction }))) {
      throw errors.validation([{ field: 'userId', message: 'is not a user of this organization' }]);
    }
    return {
      firstName: input.firstName,
      lastName: input.lastName,
      email: input.email,
      phone: input.phone ?? null,
      tier: input.tier ?? 'member',
      membershipType: input.membershipType ?? null,
      status: input.status ?? 'active',
      joinedAt: input.joinedAt ?? null,
      renewalDate: input.renewalDate ?? null,
      userId,
      customFields: input.customFields ?? {},
    };
  },
  toDto: toMemberDto,
  csvColumns: [
    'id',
    'firstName',
    'lastName',
    'email',
    'phone',
    'tier',
    'membershipType',
    'status',
    'joinedAt',
    'renewalDate',
    'userId',
    'customFields',
    'createdAt',
    'updatedAt',
  ],
});
