/// <reference lib="dom" />
// SSO connections > New SSO connection, and a connection's Edit: the organization (new only), name,
// protocol (new only) with its settings, domains, default role and the two switches. The handler
// calls SsoConnectionService in the organization; its refusals come back as messages under their
// fields. The OIDC client secret is write-only: the form never receives it, and empty keeps it.
import React, { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiClient, useNotice, type ActionProps } from 'adminjs';
import {
  Box,
  Button,
  CheckBox,
  FormGroup,
  FormMessage,
  H4,
  Input,
  Label,
  SelectAsync,
  Text,
  TextArea,
} from '@adminjs/design-system';
import { PROTOCOL_NAMES, type Protocol } from './sso-protocols.ts';

const api = new ApiClient();

interface Option {
  value: string;
  label: string;
}
interface Connection {
  id: string;
  organizationId: string;
  name: string;
  protocol: Protocol;
  settings: Record<string, string>;
  hasClientSecret: boolean;
  domains: string[];
  defaultRole: string;
  allowIdpInitiated: boolean;
  createMembers: boolean;
}
interface Answer {
  connection?: Connection;
  errors?: Record<string, string>;
  notice?: { message: string; type: 'success' | 'error' };
  redirectUrl?: string;
}
type TextField =
  | 'name'
  | 'settings.idpEntityId'
  | 'settings.idpSsoUrl'
  | 'settings.idpCertificate'
  | 'settings.idpMetadataUrl'
  | 'settings.clientId'
  | 'settings.discoveryUrl'
  | 'settings.connection'
  | 'clientSecret'
  | 'domains';
interface Form {
  organization: Option | null;
  protocol: Protocol;
  text: Record<TextField, string>;
  defaultRole: string;
  allowIdpInitiated: boolean;
  createMembers: boolean;
}

const EMPTY_TEXT: Record<TextField, string> = {
  name: '',
  'settings.idpEntityId': '',
  'settings.idpSsoUrl': '',
  'settings.idpCertificate': '',
  'settings.idpMetadataUrl': '',
  'settings.clientId': '',
  'settings.discoveryUrl': '',
  'settings.connection': '',
  clientSecret: '',
  domains: '',
};
const EMPTY: Form = {
  organization: null,
  protocol: 'saml',
  text: EMPTY_TEXT,
  defaultRole: 'ROLE_MEMBER',
  allowIdpInitiated: false,
  createMembers: true,
};
const PROTOCOLS: Record<Protocol, string> = {
  saml: `${PROTOCOL_NAMES.saml}: the organization’s identity provider signs assertions for Guildhall`,
  oidc: `${PROTOCOL_NAMES.oidc}: Guildhall is a client of the organization’s provider`,
  identity_service: `${PROTOCOL_NAMES.identity_service}: a connection the identity service brokers`,
};
const ROLES: Record<string, string> = {
  ROLE_MEMBER: 'Member',
  ROLE_CLIENT_USER: 'Client User',
  ROLE_CLIENT_ADMIN: 'Client Admin',
};
const searchOrganizations = async (query: string): Promise<Option[]> =>
  (await api.searchRecords({ resourceId: 'organizations', query })).map((r) => ({ value: r.id, label: r.title }));

function formOf(connection: Connection): Form {
  const text = { ...EMPTY_TEXT, name: connection.name, domains: connection.domains.join(', ') };
  for (const [key, value] of Object.entries(connection.settings))
    if (`settings.${key}` in text) text[`settings.${key}` as TextField] = value;
  return {
    organization: { value: connection.organizationId, label: connection.organizationId },
    protocol: connection.protocol,
    text,
    defaultRole: connection.defaultRole,
    allowIdpInitiated: connection.allowIdpInitiated,
    createMembers: connection.createMembers,
  };
}

const SsoConnectionForm: React.FC<ActionProps> = ({ resource, action, record }) => {
  const addNotice = useNotice();
  const navigate = useNavigate();
  const editing = Boolean(record);
  const [form, setForm] = useState<Form>(EMPTY);
  const [saved, setSaved] = useState<Connection | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!record) return;
    api.recordAction({ resourceId: resource.id, recordId: record.id, actionName: action.name }).then((res) => {
      const connection = (res.data as Answer).connection;
      if (connection) {
        setSaved(connection);
        setForm(formOf(connection));
      }
    });
  }, [record?.id]);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const data = {
      ...form.text,
      organizationId: form.organization?.value ?? '',
      protocol: form.protocol,
      defaultRole: form.defaultRole,
      allowIdpInitiated: String(form.allowIdpInitiated),
      createMembers: String(form.createMembers),
    };
    const res = record
      ? await api.recordAction({
          resourceId: resource.id,
          recordId: record.id,
          actionName: action.name,
          method: 'post',
          data,
        })
      : await api.resourceAction({ resourceId: resource.id, actionName: action.name, method: 'post', data });
    const answer = res.data as Answer;
    setBusy(false);
    setErrors(answer.errors ?? {});
    setForm((current) => ({ ...current, text: { ...current.text, clientSecret: '' } }));
    if (answer.notice) addNotice(answer.notice);
    if (answer.redirectUrl && !answer.errors) navigate(answer.redirectUrl);
  };

  const error = (name: string) =>
    errors[name] && <FormMessage data-testid={`error-${name}`}>{errors[name]}</FormMessage>;
  const id = (name: string) => name.replace('.', '-');
  const text = (
    name: TextField,
    label: string,
    hint?: string,
    options: { required?: boolean; type?: string; multiline?: boolean } = {},
  ) => (
    <FormGroup error={Boolean(errors[name])}>
      <Label htmlFor={id(name)} required={options.required}>
        {label}
      </Label>
      {options.multiline ? (
        <TextArea
          id={id(name)}
          name={name}
          rows={6}
          value={form.text[name]}
          onChange={(e: React.ChangeEvent<HTMLTextAreaElement>) =>
            setForm({ ...form, text: { ...form.text, [name]: e.target.value } })
          }
          width="100%"
        />
      ) : (
        <Input
          id={id(name)}
          name={name}
          type={options.type ?? 'text'}
          autoComplete={options.type === 'password' ? 'new-password' : 'off'}
          value={form.text[name]}
          onChange={(e: React.ChangeEvent<HTMLInputElement>) =>
            setForm({ ...form, text: { ...form.text, [name]: e.target.value } })
          }
          width="100%"
        />
      )}
      {error(name)}
      {hint && <FormMessage style={{ color: '#454655' }}>{hint}</FormMessage>}
    </FormGroup>
  );
  const check = (name: 'allowIdpInitiated' | 'createMembers', label: string, hint: string) => (
    <FormGroup>
      <CheckBox id={name} name={name} checked={form[name]} onChange={() => setForm({ ...form, [name]: !form[name] })} />
      <Label inline htmlFor={name} ml="default">
        {label}
      </Label>
      <FormMessage style={{ color: '#454655' }}>{hint}</FormMessage>
    </FormGroup>
  );

  if (editing && !saved) return <Text>Loading…</Text>;
  return (
    <Box as="form" variant="white" p="xl" onSubmit={submit} data-testid="sso-connection-form" style={{ maxWidth: 760 }}>
      <H4>{editing ? `Edit ${saved?.name}` : 'New SSO connection'}</H4>
      {!editing && (
        <FormGroup error={Boolean(errors.organizationId)}>
          <Label htmlFor="organizationId" required>
            Organization
          </Label>
          <SelectAsync
            inputId="organizationId"
            cacheOptions
            defaultOptions
            isClearable
            placeholder="Type to search organizations…"
            loadOptions={searchOrganizations}
            value={form.organization}
            onChange={(selected: Option | null) => setForm({ ...form, organization: selected })}
          />
          {error('organizationId')}
        </FormGroup>
      )}
      {text('name', 'Name', 'How the organization’s admins will recognize it.', { required: true })}
      <FormGroup error={Boolean(errors.protocol)}>
        <Label required={!editing}>Protocol</Label>
        {editing ? (
          <Text data-testid="protocol">{PROTOCOLS[form.protocol]}</Text>
        ) : (
          (Object.keys(PROTOCOLS) as Protocol[]).map((protocol) => (
            <Box key={protocol} flex flexDirection="row" alignItems="center" mb="sm">
              <input
                type="radio"
                id={`protocol-${protocol}`}
                name="protocol"
                value={protocol}
                checked={form.protocol === protocol}
                onChange={() => setForm({ ...form, protocol })}
              />
              <Label inline htmlFor={`protocol-${protocol}`} ml="default" mb="0">
                {PROTOCOLS[protocol]}
              </Label>
            </Box>
          ))
        )}
        {error('protocol')}
      </FormGroup>
      {form.protocol === 'saml' && (
        <>
          {text('settings.idpMetadataUrl', 'IdP metadata URL', 'Fills the fields below from the IdP’s metadata.')}
          {text('settings.idpEntityId', 'IdP entity ID')}
          {text('settings.idpSsoUrl', 'IdP single sign-on URL')}
          {text('settings.idpCertificate', 'IdP signing certificate (PEM)', undefined, { multiline: true })}
        </>
      )}
      {form.protocol === 'oidc' && (
        <>
          {text('settings.clientId', 'Client ID', undefined, { required: true })}
          {text('settings.discoveryUrl', 'Discovery URL', 'The provider’s /.well-known/openid-configuration.', {
            required: true,
          })}
          {text(
            'clientSecret',
            'Client secret',
            saved?.hasClientSecret ? 'Leave empty to keep the saved secret.' : 'Write-only: never shown again.',
            { type: 'password', required: !saved?.hasClientSecret },
          )}
        </>
      )}
      {form.protocol === 'identity_service' &&
        text('settings.connection', 'Identity service connection ID', 'As the identity service shows it (conn_…).', {
          required: true,
        })}
      {text('domains', 'E-mail domains', 'Comma-separated, e.g. example.com, example.org.')}
      <FormGroup error={Boolean(errors.defaultRole)}>
        <Label htmlFor="defaultRole">Default role</Label>
        <select
          id="defaultRole"
          name="defaultRole"
          value={form.defaultRole}
          onChange={(e) => setForm({ ...form, defaultRole: e.target.value })}
        >
          {Object.entries(ROLES).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        {error('defaultRole')}
      </FormGroup>
      {check('allowIdpInitiated', 'Allow IdP-initiated login', 'Accept logins that start at the identity provider.')}
      {check('createMembers', 'Create members', 'A first login with a new e-mail in the domains creates the account.')}
      <Button type="submit" variant="contained" disabled={busy} data-testid="sso-connection-submit">
        {editing ? 'Save' : 'Create connection'}
      </Button>
    </Box>
  );
};

export default SsoConnectionForm;
