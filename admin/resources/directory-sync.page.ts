// Platform Settings > Directory Sync: the directories of every organization (with their users and
// groups counted) and the form that adds one through DirectoryService (platform admins, audited). The
// new SCIM token is in the POST's answer and nowhere else: the component shows it once and forgets it.
// A refusal comes back as field messages and a notice, as on Platform Settings > Integrations.
import type { PageHandler } from 'adminjs';
import { Op } from 'sequelize';
import type { AppContext as Container } from '../../src/app-context.ts';
import { DIRECTORY_PROVIDERS, type DirectoryProvider } from '../../src/modules/directory/directory.model.ts';
import type { DirectoryInput } from '../../src/modules/directory/directory.service.ts';
import { errors, type FieldError } from '../../src/shared/errors.ts';
import { portalActor } from '../portal-actor.ts';
import { formRefusalOf } from '../portal-errors.ts';

export const DIRECTORY_SYNC_PAGE = 'directory-sync';
/** The page lists the newest; the rest are in the directories resource's list. */
const SHOWN = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface DirectoryRow {
  id: string;
  name: string;
  organizationId: string;
  organizationName: string | null;
  provider: DirectoryProvider;
  status: string;
  tokenPrefix: string | null;
  users: number;
  groups: number;
  lastSyncAt: Date | null;
  lastError: string | null;
}

export interface DirectorySyncPageData {
  scimUrl: string;
  directories: DirectoryRow[];
  total: number;
  /** Only in the answer to the POST that added it. */
  created?: { id: string; name: string; token: string };
  errors?: Record<string, string>;
  notice?: { message: string; type: 'success' | 'error' };
}

/** The form's strings -> the service's input; what the form itself cannot accept, by field. */
function inputOf(payload: Record<string, unknown> | undefined): DirectoryInput {
  const text = (name: string) => (typeof payload?.[name] === 'string' ? (payload[name] as string).trim() : '');
  const flag = (name: string) => payload?.[name] === true || payload?.[name] === 'true';
  const provider = text('provider') as DirectoryProvider;
  const problems: FieldError[] = [];
  if (!UUID.test(text('organizationId'))) problems.push({ field: 'organizationId', message: 'choose an organization' });
  if (!text('name')) problems.push({ field: 'name', message: 'is required' });
  else if (text('name').length > 200) problems.push({ field: 'name', message: 'is longer than 200 characters' });
  if (!DIRECTORY_PROVIDERS.includes(provider)) problems.push({ field: 'provider', message: 'choose a provider' });
  if (text('externalId').length > 200) problems.push({ field: 'externalId', message: 'is longer than 200 characters' });
  if (problems.length) throw errors.validation(problems);
  return {
    organizationId: text('organizationId'),
    name: text('name'),
    provider,
    externalId: provider === 'identity_service' ? text('externalId') || null : null,
    hardDelete: flag('hardDelete'),
    sendWelcome: flag('sendWelcome'),
  };
}

export function directorySyncPage(container: Container, component: string) {
  const { directories } = container.services;
  const { Directory, Organization } = container.models;
  const scimUrl = `${container.config.baseUrl}/scim/v2`;

  const rows = async (): Promise<Pick<DirectorySyncPageData, 'directories' | 'total'>> => {
    const { rows: list, count } = await Directory.findAndCountAll({
      attributes: ['id', 'name', 'organizationId', 'provider', 'status', 'tokenPrefix', 'lastSyncAt', 'lastError'],
      order: [
        ['createdAt', 'DESC'],
        ['id', 'ASC'],
      ],
      limit: SHOWN,
    });
    const ids = list.map((d) => d.id);
    const [counts, organizations] = await Promise.all([
      directories.counts(ids),
      Organization.findAll({
        attributes: ['id', 'name'],
        where: { id: { [Op.in]: [...new Set(list.map((d) => d.organizationId))] } },
      }),
    ]);
    const names = new Map(organizations.map((o) => [o.id, o.name]));
    return {
      total: count,
      directories: list.map((d) => ({
        id: d.id,
        name: d.name,
        organizationId: d.organizationId,
        organizationName: names.get(d.organizationId) ?? null,
        provider: d.provider,
        status: d.status,
        tokenPrefix: d.tokenPrefix,
        users: counts.get(d.id)?.users ?? 0,
        groups: counts.get(d.id)?.groups ?? 0,
        lastSyncAt: d.lastSyncAt,
        lastError: d.lastError,
      })),
    };
  };

  const handler: PageHandler = async (request, _response, context): Promise<DirectorySyncPageData> => {
    const actor = await portalActor(context.currentAdmin);
    if (request.method !== 'post') return { scimUrl, ...(await rows()) };
    try {
      const { directory, token } = await directories.create(actor, inputOf(request.payload));
      return {
        scimUrl,
        ...(await rows()),
        created: { id: directory.id, name: directory.name, token },
        notice: { message: `Directory ${directory.name} added`, type: 'success' },
      };
    } catch (error) {
      const refusal = formRefusalOf(error);
      return { scimUrl, ...(await rows()), ...refusal };
    }
  };
  return { component, icon: 'Users', handler };
}
