/// <reference lib="dom" />
// Platform Settings > Directory Sync: every organization's directories, and the form that adds one.
// Adding answers with the SCIM token, shown once above the list (OneTimeToken) and kept nowhere else:
// not in the list, the URL or a notice. The service's refusals come back as messages under their fields.
import React, { useEffect, useState } from 'react';
import { ApiClient, ViewHelpers, useNotice } from 'adminjs';
import {
  Box,
  Button,
  CheckBox,
  FormGroup,
  FormMessage,
  H2,
  H4,
  Input,
  Label,
  Link,
  SelectAsync,
  Text,
} from '@adminjs/design-system';
import DirectoriesTable, { type DirectoryRow } from './DirectoriesTable.tsx';
import OneTimeToken from './OneTimeToken.tsx';

const api = new ApiClient();
const h = new ViewHelpers();
const PAGE = 'directory-sync';

interface PageData {
  scimUrl: string;
  directories: DirectoryRow[];
  total: number;
  created?: { id: string; name: string; token: string };
  errors?: Record<string, string>;
  notice?: { message: string; type: 'success' | 'error' };
}
interface Option {
  value: string;
  label: string;
}
interface Form {
  organization: Option | null;
  name: string;
  provider: 'scim' | 'identity_service';
  externalId: string;
  hardDelete: boolean;
  sendWelcome: boolean;
}

const EMPTY: Form = {
  organization: null,
  name: '',
  provider: 'scim',
  externalId: '',
  hardDelete: false,
  sendWelcome: true,
};
const PROVIDERS = {
  scim: 'SCIM: Microsoft Entra ID, Okta or another provider pushes users and groups to Guildhall',
  identity_service: 'Identity service: a directory the identity service brokers (its webhooks and a pull sync)',
};
const showUrl = (resourceId: string, recordId: string) =>
  h.recordActionUrl({ resourceId, recordId, actionName: 'show' });
const searchOrganizations = async (query: string): Promise<Option[]> =>
  (await api.searchRecords({ resourceId: 'organizations', query })).map((r) => ({ value: r.id, label: r.title }));

const DirectorySync: React.FC = () => {
  const addNotice = useNotice();
  const [data, setData] = useState<PageData | null>(null);
  const [form, setForm] = useState<Form>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [created, setCreated] = useState<PageData['created'] | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api.getPage({ pageName: PAGE }).then((res) => setData(res.data as PageData));
  }, []);

  const add = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const { organization, ...rest } = form;
    const res = await api.getPage({
      pageName: PAGE,
      method: 'post',
      data: { ...rest, organizationId: organization?.value ?? '' },
    });
    const answer = res.data as PageData;
    setBusy(false);
    // the token stays in this state only; the list and everything else come without it
    const { created: issued, ...shown } = answer;
    setData(shown);
    setErrors(answer.errors ?? {});
    if (answer.notice) addNotice(answer.notice);
    if (issued) {
      setCreated(issued);
      setForm(EMPTY);
      // the portal scrolls inside its layout: back up to the token
      document.querySelector('[data-testid=directory-sync]')?.scrollIntoView();
    }
  };

  const error = (name: string) =>
    errors[name] && <FormMessage data-testid={`error-${name}`}>{errors[name]}</FormMessage>;
  const text = (name: 'name' | 'externalId', label: string, hint: string, placeholder?: string) => (
    <FormGroup error={Boolean(errors[name])}>
      <Label htmlFor={name} required>
        {label}
      </Label>
      <Input
        id={name}
        name={name}
        autoComplete="off"
        placeholder={placeholder}
        value={form[name]}
        onChange={(e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [name]: e.target.value })}
        width="100%"
      />
      {error(name)}
      <FormMessage style={{ color: '#454655' }}>{hint}</FormMessage>
    </FormGroup>
  );
  const check = (name: 'hardDelete' | 'sendWelcome', label: string, hint: string) => (
    <FormGroup>
      <CheckBox id={name} name={name} checked={form[name]} onChange={() => setForm({ ...form, [name]: !form[name] })} />
      <Label inline htmlFor={name} ml="default">
        {label}
      </Label>
      <FormMessage style={{ color: '#454655' }}>{hint}</FormMessage>
    </FormGroup>
  );

  if (!data) return <Text>Loading…</Text>;
  return (
    <Box data-testid="directory-sync" variant="transparent" p="lg" style={{ maxWidth: 1200 }}>
      <H2>Directory Sync</H2>
      <Text mb="xl" style={{ maxWidth: 860 }}>
        An organization’s identity provider keeps its accounts up to date through a directory: it creates, updates and
        deactivates users, and their groups give them roles. Each directory has its own SCIM bearer token, shown once
        when it is issued.
      </Text>
      {created && (
        <OneTimeToken
          title={`Directory ${created.name} added: its SCIM token`}
          token={created.token}
          scimUrl={data.scimUrl}
          directoryUrl={showUrl('directories', created.id)}
          onDone={() => setCreated(null)}
        />
      )}
      <Box variant="white" p="xl" mb="xl">
        <H4>Directories</H4>
        {data.directories.length ? (
          <DirectoriesTable rows={data.directories} />
        ) : (
          <Text data-testid="no-directories">No directories yet: add one below.</Text>
        )}
        {data.total > data.directories.length && (
          <Text mt="lg">
            The {data.directories.length} newest of {data.total}:{' '}
            <Link href={h.resourceUrl({ resourceId: 'directories' })}>all directories</Link>.
          </Text>
        )}
      </Box>
      <Box
        as="form"
        variant="white"
        p="xl"
        mb="xl"
        onSubmit={add}
        data-testid="add-directory"
        style={{ maxWidth: 760 }}
      >
        <H4>Add directory</H4>
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
        {text('name', 'Name', 'How the organization’s admins will recognize it.', 'Microsoft Entra ID')}
        <FormGroup error={Boolean(errors.provider)}>
          <Label required>Provider</Label>
          {(Object.keys(PROVIDERS) as Array<Form['provider']>).map((provider) => (
            <Box key={provider} flex flexDirection="row" alignItems="center" mb="sm">
              <input
                type="radio"
                id={`provider-${provider}`}
                name="provider"
                value={provider}
                checked={form.provider === provider}
                onChange={() => setForm({ ...form, provider })}
              />
              <Label inline htmlFor={`provider-${provider}`} ml="default" mb="0">
                {PROVIDERS[provider]}
              </Label>
            </Box>
          ))}
          {error('provider')}
        </FormGroup>
        {form.provider === 'identity_service' &&
          text('externalId', 'Identity service directory ID', 'As the identity service shows it.', 'directory_…')}
        {check(
          'hardDelete',
          'Hard delete',
          'When a user is deleted in the directory, delete the account. Otherwise it is deactivated.',
        )}
        {check(
          'sendWelcome',
          'Send the welcome e-mail',
          'Provisioned users get the welcome e-mail (never a password link).',
        )}
        <Text mb="lg" fontSize="sm" style={{ color: '#454655' }}>
          Groups named admins, staff and members give the client admin, client user and member roles; a user in none of
          them is a member.
        </Text>
        <Button type="submit" variant="contained" disabled={busy} data-testid="add-directory-submit">
          Add directory
        </Button>
      </Box>
    </Box>
  );
};

export default DirectorySync;
