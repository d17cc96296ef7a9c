/// <reference lib="dom" />
// A value only some records have (an SSO connection's addresses depend on its protocol): shown when the
// record has it, not at all otherwise (AdminJS would show the label over an empty value).
import React from 'react';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { ValueGroup } from '@adminjs/design-system';

const OptionalValue: React.FC<BasePropertyProps> = ({ property, record }) => {
  const { translateProperty } = useTranslation();
  const value = record?.params?.[property.path];
  if (value === undefined || value === null || value === '') return null;
  return <ValueGroup label={translateProperty(property.path, property.resourceId)}>{String(value)}</ValueGroup>;
};

export default OptionalValue;
