/// <reference lib="dom" />
// A directory's properties as an admin reads them: the token by its prefix or "revoked", the SCIM base
// URL as code, group → role as a table, what hard delete and the welcome e-mail mean, and "never" or
// "—" where nothing happened yet (AdminJS would show an empty value).
import React from 'react';
import { flat, useTranslation, type BasePropertyProps } from 'adminjs';
import { Badge, Box, Text, ValueGroup } from '@adminjs/design-system';
import { codeStyle as code, dateOf, GroupRolesTable, ROLE_NAMES } from './record-values.tsx';

const yes = (value: unknown) => value === true || value === 'true';
const HINTS: Record<string, (value: unknown) => string> = {
  tokenPrefix: (value) =>
    value
      ? 'Only its first characters: the token itself is shown once, when it is issued.'
      : 'Provisioning requests are refused until a new token is issued (Rotate token).',
};

function shownValue(path: string, value: unknown): React.ReactNode {
  switch (path) {
    case 'tokenPrefix':
      return value ? (
        <span data-testid="token-prefix" style={code}>
          {String(value)}…
        </span>
      ) : (
        <Badge data-testid="token-prefix" variant="danger" size="sm">
          revoked
        </Badge>
      );
    case 'provider':
      return value === 'scim' ? 'SCIM (our SCIM 2.0 server)' : 'Identity service (brokered)';
    case 'status':
      return (
        <Badge size="sm" variant={value === 'active' ? 'success' : 'light'}>
          {String(value)}
        </Badge>
      );
    case 'lastSyncAt':
      return value ? dateOf(value) : 'never';
    case 'lastErrorAt':
    case 'lastError':
    case 'externalId':
      return value ? (path === 'lastErrorAt' ? dateOf(value) : String(value)) : '—';
    case 'scimUrl':
      return (
        <span data-testid="record-scim-url" style={code}>
          {String(value ?? '')}
        </span>
      );
    case 'groupRoles':
      return <GroupRolesTable value={value} groupLabel="Directory group" />;
    case 'defaultRole':
      return ROLE_NAMES[String(value)] ?? String(value ?? '—');
    case 'hardDelete':
      return yes(value)
        ? 'Yes: a user deleted in the directory has the account deleted'
        : 'No: a user deleted in the directory has the account deactivated';
    case 'sendWelcome':
      return yes(value) ? 'Sent to provisioned users (never a password link)' : 'Not sent';
    default:
      return String(value ?? '—');
  }
}

const DirectoryValue: React.FC<BasePropertyProps> = ({ property, record, where }) => {
  const { translateProperty } = useTranslation();
  const value = record ? flat.get(record.params, property.path) : undefined;
  const shown = shownValue(property.path, value);
  if (where === 'list') return <>{shown}</>;
  const hint = HINTS[property.path]?.(value);
  return (
    <ValueGroup label={translateProperty(property.path, property.resourceId)}>
      <Box>{shown}</Box>
      {hint && (
        <Text mt="sm" fontSize="sm" style={{ color: '#454655' }}>
          {hint}
        </Text>
      )}
    </ValueGroup>
  );
};

export default DirectoryValue;
