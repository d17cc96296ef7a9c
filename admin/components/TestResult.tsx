/// <reference lib="dom" />
// An SSO connection's last test: passed, failed, or not tested yet (AdminJS would show a null boolean as "No").
import React from 'react';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { Badge, ValueGroup } from '@adminjs/design-system';

const TestResult: React.FC<BasePropertyProps> = ({ property, record, where }) => {
  const { translateProperty } = useTranslation();
  const value = record?.params?.[property.path];
  const badge =
    value === true || value === 'true' ? (
      <Badge variant="success">passed</Badge>
    ) : value === false || value === 'false' ? (
      <Badge variant="danger">failed</Badge>
    ) : (
      <Badge variant="light">not tested</Badge>
    );
  if (where === 'list') return badge;
  return <ValueGroup label={translateProperty(property.path, property.resourceId)}>{badge}</ValueGroup>;
};

export default TestResult;
