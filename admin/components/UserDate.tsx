/// <reference lib="dom" />
// A user's dates in the portal's one time format; a user who never logged in shows "Never".
import React from 'react';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { FormGroup, Label, Text } from '@adminjs/design-system';
import { portalTime } from './portal-time.ts';

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
