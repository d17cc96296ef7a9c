/// <reference lib="dom" />
// An array of short strings (an SSO connection's e-mail domains) as one comma-separated line, instead of
// AdminJS's "Length: 1" in lists and a numbered box per item on the record page.
import React from 'react';
import { flat, useTranslation, type BasePropertyProps } from 'adminjs';
import { ValueGroup } from '@adminjs/design-system';

const TextList: React.FC<BasePropertyProps> = ({ property, record, where }) => {
  const { translateProperty } = useTranslation();
  const value = record ? flat.get(record.params, property.path) : undefined;
  const text = Array.isArray(value) && value.length ? value.join(', ') : '—';
  if (where === 'list') return <span data-testid={`list-${property.path}`}>{text}</span>;
  return <ValueGroup label={translateProperty(property.path, property.resourceId)}>{text}</ValueGroup>;
};

export default TextList;
