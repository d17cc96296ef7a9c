/// <reference lib="dom" />
// A JSON column (an audit entry's before and after) shown as indented JSON. AdminJS flattens nested
// params (before.name, before.plan, ...); this puts them back together. React escapes the text.
import React from 'react';
import { flat, useTranslation, type BasePropertyProps } from 'adminjs';
import { ValueGroup } from '@adminjs/design-system';

const JsonValue: React.FC<BasePropertyProps> = ({ property, record, where }) => {
  const { translateProperty } = useTranslation();
  const value = record ? flat.get(record.params, property.path) : undefined;
  if (where === 'list') {
    // a job's output: its error message, else the JSON, cut short
    const message =
      value && typeof value === 'object' && 'message' in value
        ? String((value as { message: unknown }).message)
        : value === undefined || value === null
          ? ''
          : JSON.stringify(value);
    return <span title={message}>{message.length > 80 ? `${message.slice(0, 79)}…` : message}</span>;
  }
  return (
    <ValueGroup label={translateProperty(property.path, property.resourceId)}>
      <pre
        data-testid={`json-${property.path}`}
        // long unbroken strings (a job error, a token) wrap inside the box instead of running past the page
        style={{
          whiteSpace: 'pre-wrap',
          overflowWrap: 'anywhere',
          fontFamily: 'monospace',
          background: '#f6f7fb',
          padding: 12,
        }}
      >
        {value === undefined || value === null ? '—' : JSON.stringify(value, null, 2)}
      </pre>
    </ValueGroup>
  );
};

export default JsonValue;
