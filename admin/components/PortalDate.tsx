/// <reference lib="dom" />
// Every date-time column and field the portal shows without a component of its own (AdminJS's default
// datetime list and show views, overridden), in the portal's one time format.
import React from 'react';
import { flat, useTranslation, type BasePropertyProps } from 'adminjs';
import { ValueGroup } from '@adminjs/design-system';
import { portalTime } from './portal-time.ts';

const PortalDate: React.FC<BasePropertyProps> = ({ property, record, where }) => {
  const { translateProperty } = useTranslation();
  const value = record ? flat.get(record.params, property.path) : undefined;
  // a 'date' property is a calendar day: no time, no zone
  const text = property.type === 'date' ? String(value ?? '').slice(0, 10) : portalTime(value);
  if (where === 'list') return <span>{text}</span>;
  return <ValueGroup label={translateProperty(property.label, property.resourceId)}>{text || '—'}</ValueGroup>;
};

export default PortalDate;
