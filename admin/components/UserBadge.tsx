/// <reference lib="dom" />
// Status and role as coloured badges: Active green, Pending amber, Suspended red, Inactive grey;
// platform admins stand out from the organization roles.
import React from 'react';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { Badge, FormGroup, Label } from '@adminjs/design-system';

const COLOURS: Record<string, { bg: string; color: string }> = {
  active: { bg: '#dff5e6', color: '#0b6b2f' },
  pending: { bg: '#fff1cc', color: '#7a5200' },
  suspended: { bg: '#fde2e2', color: '#a1121b' },
  inactive: { bg: '#e6e7ec', color: '#4a4d5a' },
  ROLE_PLATFORM_ADMIN: { bg: '#e8defc', color: '#4b1fa8' },
  ROLE_CLIENT_ADMIN: { bg: '#dceafd', color: '#0d4a9e' },
  ROLE_SPONSOR_ADMIN: { bg: '#dceafd', color: '#0d4a9e' },
};
const ROLE_DEFAULT = { bg: '#eef0f4', color: '#2f3242' };

const UserBadge: React.FC<BasePropertyProps> = ({ property, resource, record, where }) => {
  const { translateProperty } = useTranslation();
  const value = String(record?.params?.[property.path] ?? '');
  if (!value) return null;
  const label = property.availableValues?.find((v) => v.value === value)?.label ?? value;
  const colours = COLOURS[value] ?? ROLE_DEFAULT;
  const badge = (
    <Badge
      data-testid={`badge-${property.path}-${value}`}
      size="sm"
      style={{ background: colours.bg, color: colours.color, border: 'none', fontWeight: 600 }}
    >
      {label}
    </Badge>
  );
  if (where !== 'show') return badge;
  return (
    <FormGroup>
      <Label>{translateProperty(property.label, resource.id)}</Label>
      {badge}
    </FormGroup>
  );
};

export default UserBadge;
