/// <reference lib="dom" />
// The portal's one time format for users, with its zone: "2026-11-23 18:40 UTC".
import React from 'react';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { FormGroup, Label, Text } from '@adminjs/design-system';

export const portalTime = (value: unknown): string => {
  if (!value) return '';
  const date = new Date(String(value));
  return Number.isNaN(date.getTime()) ? '' : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
};

const UserDate: React.FC<BasePropertyProps> = ({ property, resource, record, where }) => {
  const { translateProperty } = useTranslation();
  const text = portalTime(record?.params?.[property.path]) || (property.path === 'lastLoginAt' ? 'Never' : '');
  if (where !== 'show') return <span>{text}</span>;
  return (
    <FormGroup>
      <Label>{translateProperty(property.label, resource.id)}</Label>
      <Text
        data-testid={`show-${property.path}`}
        style={property.path === 'deletedAt' ? { color: '#a1121b', fontWeight: 600 } : undefined}
      >
        {text || '—'}
      </Text>
    </FormGroup>
  );
};

export default UserDate;
