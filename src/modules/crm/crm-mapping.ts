// Which member field goes to which HubSpot contact property. The defaults use HubSpot's standard
// properties where one exists (email, firstname, lastname, phone, company) and `guildhall_*` custom
// properties for the membership (created by POST /api/crm/properties). An organization may point a
// field at another property; every mapping is checked against HubSpot's properties API before a run.
import type { PropertyToCreate } from '../../integrations/hubspot/hubspot.client.ts';
import type { FieldError } from '../../shared/errors.ts';

export interface MappingEntry {
  service_field: ServiceField;
  crm_property: string;
}

export interface MemberForCrm {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  phone: string | null;
  status: string;
  tier: string;
  membership_type: string | null;
  joined_at: string | null;
  renewal_date: string | null;
  employer: string | null;
}

/** The member fields a mapping may name, as the members API spells them, and how to read each. */
const FIELDS = {
  email: (m) => m.email,
  firstName: (m) => m.first_name,
  lastName: (m) => m.last_name,
  phone: (m) => m.phone,
  employer: (m) => m.employer,
  status: (m) => m.status,
  tier: (m) => m.tier,
  membershipType: (m) => m.membership_type,
  joinedAt: (m) => m.joined_at,
  renewalDate: (m) => m.renewal_date,
  id: (m) => m.id,
} satisfies Record<string, (member: MemberForCrm) => string | null>;

export type ServiceField = keyof typeof FIELDS;

export const DEFAULT_MAPPING: readonly MappingEntry[] = [
  { service_field: 'email', crm_property: 'email' },
  { service_field: 'firstName', crm_property: 'firstname' },
  { service_field: 'lastName', crm_property: 'lastname' },
  { service_field: 'phone', crm_property: 'phone' },
  { service_field: 'employer', crm_property: 'company' },
  { service_field: 'status', crm_property: 'guildhall_membership_status' },
  { service_field: 'tier', crm_property: 'guildhall_membership_tier' },
  { service_field: 'joinedAt', crm_property: 'guildhall_join_date' },
  { service_field: 'renewalDate', crm_property: 'guildhall_renewal_date' },
  { service_field: 'id', crm_property: 'guildhall_member_id' },
];

/** The custom properties the defaults need, as "create missing properties" creates them. */
export const CUSTOM_PROPERTIES: readonly PropertyToCreate[] = [
  { name: 'guildhall_membership_status', label: 'Membership status (Guildhall)', type: 'string', fieldType: 'text' },
  { name: 'guildhall_membership_tier', label: 'Membership tier (Guildhall)', type: 'string', fieldType: 'text' },
  { name: 'guildhall_join_date', label: 'Join date (Guildhall)', type: 'date', fieldType: 'date' },
  { name: 'guildhall_renewal_date', label: 'Renewal date (Guildhall)', type: 'date', fieldType: 'date' },
  { name: 'guildhall_member_id', label: 'Member ID (Guildhall)', type: 'string', fieldType: 'text' },
];

/** What a deleted member's contact is marked with when the organization keeps contacts (the default). */
export const DELETED_STATUS = 'deleted';

/**
 * A mapping that sends one property two values, or anything but the e-mail as `email` (the key
 * contacts are upserted by), would write wrong data to every contact: refused with the entry named.
 */
export function mappingProblems(mapping: readonly MappingEntry[]): FieldError[] {
  const seen = new Set<string>();
  return mapping.flatMap(({ service_field, crm_property }, i): FieldError[] => {
    const property = crm_property.toLowerCase();
    const field = `propertyMapping.${i}.crm_property`;
    if (seen.has(property)) return [{ field, message: `maps a second field to ${crm_property}` }];
    seen.add(property);
    if (property === 'email' && service_field !== 'email')
      return [{ field, message: 'email is the key contacts are matched by: only the email field maps to it' }];
    return [];
  });
}

/** `deletePolicy: mark` writes its mark to the status field's property: a mapping without one marks nothing. */
export function policyProblems(deletePolicy: 'mark' | 'archive', mapping: readonly MappingEntry[]): FieldError[] {
  if (deletePolicy !== 'mark' || mappingOf(mapping).some((entry) => entry.service_field === 'status')) return [];
  return [
    {
      field: 'propertyMapping',
      message: 'maps no status field: with deletePolicy mark a deleted member is marked through it (or choose archive)',
    },
  ];
}

export const mappingOf = (stored: readonly MappingEntry[]): readonly MappingEntry[] =>
  stored.length > 0 ? stored : DEFAULT_MAPPING;

/** The contact's properties; `skip` holds the properties HubSpot said do not exist (left out, reported). */
export function contactProperties(
  member: MemberForCrm,
  mapping: readonly MappingEntry[],
  skip: ReadonlySet<string>,
  deleted = false,
): Record<string, string> {
  const properties: Record<string, string> = { email: member.email };
  for (const { service_field, crm_property } of mapping) {
    if (skip.has(crm_property)) continue;
    const value = FIELDS[service_field](member);
    if (value !== null && value !== undefined && value !== '') properties[crm_property] = value;
  }
  if (deleted) {
    const status = mapping.find((entry) => entry.service_field === 'status');
    if (status && !skip.has(status.crm_property)) properties[status.crm_property] = DELETED_STATUS;
  }
  return properties;
}
