import type { components } from '../../types/openapi.d.ts';
import type { Attributes } from 'sequelize';
import type { Member } from './member.model.ts';

export type MemberDto = components['schemas']['Member'];
export type MemberInput = components['schemas']['MemberInput'];

export function toMemberDto(member: Attributes<Member>): MemberDto {
  return {
    id: member.id,
    organizationId: member.organizationId,
    firstName: member.firstName,
    lastName: member.lastName,
    email: member.email,
    phone: member.phone,
    tier: member.tier,
    membershipType: member.membershipType,
    status: member.status,
    joinedAt: member.joinedAt,
    renewalDate: member.renewalDate,
    userId: member.userId,
    customFields: member.customFields,
    createdAt: member.createdAt.toISOString(),
    updatedAt: member.updatedAt.toISOString(),
  };
}
