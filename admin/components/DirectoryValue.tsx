/// <reference lib="dom" />
// A directory's properties as an admin reads them: the token by its prefix or "revoked", the SCIM base
// URL as code, group → role as a table, what hard delete and the welcome e-mail mean, and "never" or
// "—" where nothing happened yet (AdminJS would show an empty value).
import React from 'react';
import { flat, useTranslation, type BasePropertyProps } from 'adminjs';
import { Badge, Box, Text, ValueGroup } from '@adminjs/design-system';

const ROLES: Record<string, string> = {
  ROLE_CLIENT_ADMIN: 'Client admin',
  ROLE_CLIENT_USER: 'Client user (staff)',
  ROLE_MEMBER: 'Member',
};
const code = { fontFamily: 'monospace', background: '#f6f7fb', padding: '2px 6px', borderRadius: 4 };
const cell = { padding: '4px 24px 4px 0', textAlign: 'left' as const };

const yes = (value: unknown) => value === true || value === 'true';
const pad = (n: number) => String(n).padStart(2, '0');
/** As AdminJS shows the other dates: 2026-01-31 14:05, local time. */
const dateOf = (value: unknown) => {
  const date = new Date(String(value));
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
};
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
    case 'groupRoles': {
      const rows = Array.isArray(value) ? (value as Array<{ group: string; role: string }>) : [];
      if (!rows.length) return <Text>No groups mapped: every user gets the default role.</Text>;
      return (
        <table data-testid="group-roles">
          <thead>
            <tr>
              <th style={{ ...cell, fontWeight: 500 }}>Directory group</th>
              <th style={{ ...cell, fontWeight: 500 }}>Role</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.group}>
                <td style={cell}>
                  <span style={code}>{row.group}</span>
                </td>
                <td style={cell}>{ROLES[row.role] ?? row.role}</td>
              </tr>
            ))}
          </tbody>
        </table>
      );
    }
    case 'defaultRole':
      return ROLES[String(value)] ?? String(value ?? '—');
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
