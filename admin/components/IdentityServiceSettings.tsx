/// <reference lib="dom" />
// Platform Settings > Integrations: the identity service's saved settings (secrets only as •••• and
// their last four characters) and the form that changes them. Secret inputs start empty: left empty,
// the saved key stays. The service's refusals come back as messages under their fields.
import React, { useEffect, useState } from 'react';
import { ApiClient, ViewHelpers, useNotice } from 'adminjs';
import { Box, Button, FormGroup, FormMessage, H2, H4, Input, Label, Link, Text } from '@adminjs/design-system';
import { portalTime } from './portal-time.ts';

const api = new ApiClient();
const PAGE = 'integrations';
const connectionsUrl = new ViewHelpers().resourceUrl({ resourceId: 'sso_connections' });

interface Settings {
  configured: boolean;
  apiKeyLast4: string | null;
  clientId: string | null;
  redirectUri: string | null;
  webhookSecretLast4: string | null;
  defaultConnection: string | null;
  updatedAt: string | null;
}
interface PageData {
  settings: Settings;
  errors?: Record<string, string>;
  notice?: { message: string; type: 'success' | 'error' };
}
type Field = 'apiKey' | 'clientId' | 'redirectUri' | 'webhookSecret' | 'defaultConnection';

const masked = (last4: string | null) => (last4 ? `•••• ${last4}` : 'not set');
const EMPTY: Record<Field, string> = {
  apiKey: '',
  clientId: '',
  redirectUri: '',
  webhookSecret: '',
  defaultConnection: '',
};
const formOf = (s: Settings): Record<Field, string> => ({
  ...EMPTY,
  clientId: s.clientId ?? '',
  redirectUri: s.redirectUri ?? '',
  defaultConnection: s.defaultConnection ?? '',
});

const Row: React.FC<{ label: string; testId: string; children: React.ReactNode }> = ({ label, testId, children }) => (
  <tr>
    <th style={{ textAlign: 'left', fontWeight: 500, padding: '6px 24px 6px 0', color: '#454655' }}>{label}</th>
    <td data-testid={testId} style={{ padding: '6px 0', wordBreak: 'break-all' }}>
      {children}
    </td>
  </tr>
);

const IdentityServiceSettings: React.FC = () => {
  const addNotice = useNotice();
  const [settings, setSettings] = useState<Settings | null>(null);
  const [form, setForm] = useState<Record<Field, string>>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api.getPage({ pageName: PAGE }).then((res) => {
      const data = res.data as PageData;
      setSettings(data.settings);
      setForm(formOf(data.settings));
    });
  }, []);

  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const res = await api.getPage({ pageName: PAGE, method: 'post', data: form });
    const data = res.data as PageData;
    setBusy(false);
    setSettings(data.settings);
    setErrors(data.errors ?? {});
    // saved: the secret inputs empty again; refused: what was typed stays to be corrected
    if (!data.errors) setForm(formOf(data.settings));
    if (data.notice) addNotice(data.notice);
  };

  const field = (name: Field, label: string, options: { secret?: boolean; hint?: string; placeholder?: string }) => (
    <FormGroup error={Boolean(errors[name])}>
      <Label htmlFor={name}>{label}</Label>
      <Input
        id={name}
        name={name}
        type={options.secret ? 'password' : 'text'}
        autoComplete={options.secret ? 'new-password' : 'off'}
        placeholder={options.placeholder}
        value={form[name]}
        onChange={(e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [name]: e.target.value })}
        width="100%"
      />
      {errors[name] && <FormMessage data-testid={`error-${name}`}>{errors[name]}</FormMessage>}
      {options.hint && <FormMessage style={{ color: '#454655' }}>{options.hint}</FormMessage>}
    </FormGroup>
  );

  if (!settings) return <Text>Loading…</Text>;
  return (
    <Box data-testid="identity-service" variant="transparent" p="lg" style={{ maxWidth: 760 }}>
      <H2>Identity service</H2>
      <Text mb="lg">
        The identity service brokers organizations’ SAML and OIDC single sign-on. Its API key and webhook secret are
        used by the backend only; they are never shown again after saving, only their last four characters.
      </Text>
      <Box variant="white" p="xl" mb="xl" data-testid="identity-service-current">
        <H4>Saved settings</H4>
        <table>
          <tbody>
            <Row label="Configured" testId="configured">
              {settings.configured ? 'Yes' : 'No'}
            </Row>
            <Row label="API key" testId="api-key">
              {masked(settings.apiKeyLast4)}
            </Row>
            <Row label="Client ID" testId="client-id">
              {settings.clientId ?? 'not set'}
            </Row>
            <Row label="Redirect URI" testId="redirect-uri">
              {settings.redirectUri ?? 'not set'}
            </Row>
            <Row label="Webhook secret" testId="webhook-secret">
              {masked(settings.webhookSecretLast4)}
            </Row>
            <Row label="Default connection" testId="default-connection">
              {settings.defaultConnection ?? 'none'}
            </Row>
            <Row label="Last updated" testId="updated-at">
              {portalTime(settings.updatedAt) || 'never'}
            </Row>
          </tbody>
        </table>
      </Box>
      <Box as="form" variant="white" p="xl" mb="xl" onSubmit={save} data-testid="identity-service-form">
        <H4>Change settings</H4>
        {field('apiKey', 'API key', {
          secret: true,
          placeholder: settings.apiKeyLast4 ? masked(settings.apiKeyLast4) : 'sk_…',
          hint: settings.apiKeyLast4 ? 'Leave empty to keep the saved key.' : 'Begins with sk_.',
        })}
        {field('clientId', 'Client ID', { placeholder: 'client_…' })}
        {field('redirectUri', 'Redirect URI', { hint: 'The OAuth callback registered at the identity service.' })}
        {field('webhookSecret', 'Webhook secret', {
          secret: true,
          placeholder: settings.webhookSecretLast4 ? masked(settings.webhookSecretLast4) : '',
          hint: settings.webhookSecretLast4
            ? 'Leave empty to keep the saved secret.'
            : 'At least 16 characters, as the identity service shows it.',
        })}
        {field('defaultConnection', 'Default connection', {
          hint: 'Optional: the identity service connection used when a login names none.',
        })}
        <Button type="submit" variant="contained" disabled={busy} data-testid="identity-service-save">
          Save settings
        </Button>
      </Box>
      <Text>
        Organizations’ SSO connections are created and edited by their admins through the API (
        <code>/api/sso/connections</code>), or by platform admins in the portal: create, edit, test, enable or disable
        them under <Link href={connectionsUrl}>Platform › SSO connections</Link>.
      </Text>
    </Box>
  );
};

export default IdentityServiceSettings;
