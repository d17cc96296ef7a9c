/// <reference lib="dom" />
// An SSO connection's status, last test, settings and group → role mapping as an admin reads them: the
// status as a badge (as a directory's), "never" for a connection not tested yet, each setting under its
// name, the IdP certificate as PEM with its line breaks, the mapping as a table (JSON would show the
// certificate as one string full of "\n").
import React from 'react';
import { flat, useTranslation, type BasePropertyProps } from 'adminjs';
import { Badge, Box, Text, ValueGroup } from '@adminjs/design-system';
import { codeStyle, dateOf, GroupRolesTable } from './record-values.tsx';

/** The settings of every protocol (SsoSettings in openapi.yaml), in the order an admin fills them in. */
const SETTING_NAMES: Record<string, string> = {
  idpEntityId: 'IdP entity ID',
  idpSsoUrl: 'IdP SSO URL',
  idpMetadataUrl: 'IdP metadata URL',
  idpCertificate: 'IdP certificate',
  clientId: 'Client ID',
  discoveryUrl: 'Discovery URL',
  connection: 'Identity service connection',
  organization: 'Identity service organization',
};
const pem = {
  ...codeStyle,
  display: 'block',
  whiteSpace: 'pre-wrap' as const,
  overflowWrap: 'anywhere' as const,
  padding: 12,
  margin: 0,
  fontSize: 12,
};

function Settings({ value }: { value: unknown }) {
  const settings = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const names = Object.keys(SETTING_NAMES).filter((name) => typeof settings[name] === 'string' && settings[name]);
  if (!names.length) return <Text>—</Text>;
  return (
    <Box data-testid="sso-settings">
      {names.map((name) => (
        <Box key={name} mb="default">
          <Text fontSize="sm" style={{ color: '#454655' }}>
            {SETTING_NAMES[name]}
          </Text>
          {name === 'idpCertificate' ? (
            <pre data-testid="sso-certificate" style={pem}>
              {String(settings[name]).trim()}
            </pre>
          ) : (
            <span style={codeStyle}>{String(settings[name])}</span>
          )}
        </Box>
      ))}
    </Box>
  );
}

function shownValue(path: string, value: unknown): React.ReactNode {
  if (path === 'settings') return <Settings value={value} />;
  if (path === 'groupRoles') return <GroupRolesTable value={value} groupLabel="IdP group" />;
  if (path === 'lastTestedAt') return value ? dateOf(value) : 'never';
  if (path === 'lastTestDetail') return value ? String(value) : '—';
  return (
    <Badge data-testid="sso-status" size="sm" variant={value === 'active' ? 'success' : 'light'}>
      {String(value ?? '—')}
    </Badge>
  );
}

const SsoValue: React.FC<BasePropertyProps> = ({ property, record, where }) => {
  const { translateProperty } = useTranslation();
  const value = record ? flat.get(record.params, property.path) : undefined;
  const shown = shownValue(property.path, value);
  if (where === 'list') return <>{shown}</>;
  return <ValueGroup label={translateProperty(property.path, property.resourceId)}>{shown}</ValueGroup>;
};

export default SsoValue;
