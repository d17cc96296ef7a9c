/// <reference lib="dom" />
// A column holding a code (an audit action, a session's mode, a resource's format), shown in words.
import React from 'react';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { ValueGroup } from '@adminjs/design-system';
import { codeLabel } from './portal-labels.ts';

const CodeLabel: React.FC<BasePropertyProps> = ({ property, record, where }) => {
  const { translateProperty } = useTranslation();
  const text = codeLabel(record?.params?.[property.path]);
  if (where === 'list') return <span title={String(record?.params?.[property.path] ?? '')}>{text}</span>;
  return <ValueGroup label={translateProperty(property.label, property.resourceId)}>{text || '—'}</ValueGroup>;
};

export default CodeLabel;
