// RFC 7644 §4 discovery: what this server does (PATCH, filters up to 200 results, ETags; no bulk, sort
// or password change), its two resource types and the schemas of the attributes it keeps. Static, and
// kept truthful by the tests that exercise each claim.
import type { Router } from 'express';
import { errors } from '../../../shared/errors.ts';
import { sendScim } from '../../../http/surfaces/renderers.ts';
import { GROUP_SCHEMA } from './scim-group.mapper.ts';
import { LIST_RESPONSE_SCHEMA, MAX_RESULTS } from './scim-http.ts';
import { ENTERPRISE_USER_SCHEMA } from './scim-patch.ts';
import { USER_SCHEMA } from './scim-user.mapper.ts';

const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

type Options = Partial<{ required: boolean; multi: boolean; caseExact: boolean; mutability: string; returned: string }>;

function attr(name: string, type: string, description: string, o: Options = {}, subAttributes?: unknown[]) {
  return {
    name,
    type,
    multiValued: o.multi ?? false,
    description,
    required: o.required ?? false,
    caseExact: o.caseExact ?? false,
    mutability: o.mutability ?? 'readWrite',
    returned: o.returned ?? 'default',
    uniqueness: name === 'userName' || name === 'displayName' ? 'server' : 'none',
    ...(subAttributes ? { subAttributes } : {}),
  };
}

const text = (name: string, description: string, o?: Options) => attr(name, 'string', description, o);

const SCHEMAS = [
  {
    id: USER_SCHEMA,
    name: 'User',
    description: "A person of the directory; provisions an account of the directory's organization",
    attributes: [
      text('userName', 'Unique within the directory; the e-mail address when no work e-mail is given', {
        required: true,
      }),
      attr('name', 'complex', "The person's name", {}, [
        text('givenName', 'Given name'),
        text('familyName', 'Family name'),
        text('formatted', 'Full name'),
      ]),
      text('displayName', 'Name to show'),
      text('title', 'Job title'),
      attr('active', 'boolean', 'false deactivates the account at once (its tokens are refused)'),
      attr('emails', 'complex', "Addresses; the work one (else the primary) is the account's", { multi: true }, [
        text('value', 'Address'),
        text('type', 'work, home, other'),
        attr('primary', 'boolean', 'The preferred address'),
      ]),
      attr(
        'groups',
        'complex',
        'Groups the user is in (change them through /Groups)',
        {
          multi: true,
          mutability: 'readOnly',
        },
        [
          text('value', 'Group id', { mutability: 'readOnly' }),
          text('display', 'Group name', { mutability: 'readOnly' }),
        ],
      ),
    ],
  },
  {
    id: ENTERPRISE_USER_SCHEMA,
    name: 'EnterpriseUser',
    description: 'Enterprise user extension',
    attributes: [
      text('department', "The account's department"),
      text('employeeNumber', 'Employee number'),
      text('organization', 'Organization'),
      text('division', 'Division'),
    ],
  },
  {
    id: GROUP_SCHEMA,
    name: 'Group',
    description: "A group of the directory; the directory's mapping turns membership into roles",
    attributes: [
      text('displayName', 'Unique within the directory; matched by the role mapping', { required: true }),
      attr('members', 'complex', 'Users of this directory', { multi: true }, [
        attr('value', 'string', 'User id', { mutability: 'immutable', caseExact: true }),
        text('display', 'userName', { mutability: 'readOnly' }),
        text('type', 'User', { mutability: 'readOnly' }),
      ]),
    ],
  },
];

function resourceTypes(baseUrl: string) {
  const type = (name: string, endpoint: string, schema: string, extensions: string[]) => ({
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: name,
    name,
    endpoint,
    schema,
    schemaExtensions: extensions.map((s) => ({ schema: s, required: false })),
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/scim/v2/ResourceTypes/${name}` },
  });
  return [type('User', '/Users', USER_SCHEMA, [ENTERPRISE_USER_SCHEMA]), type('Group', '/Groups', GROUP_SCHEMA, [])];
}

const list = (resources: unknown[]) => ({
  schemas: [LIST_RESPONSE_SCHEMA],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});

export function scimDiscoveryRoutes(router: Router, baseUrl: string): void {
  const schemas = SCHEMAS.map((schema) => ({
    schemas: [SCHEMA_SCHEMA],
    ...schema,
    meta: { resourceType: 'Schema', location: `${baseUrl}/scim/v2/Schemas/${schema.id}` },
  }));
  const types = resourceTypes(baseUrl);

  router.get('/ServiceProviderConfig', (_req, res) => {
    sendScim(res, {
      schemas: [SPC_SCHEMA],
      documentationUri: `${baseUrl}/docs`,
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: MAX_RESULTS },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: true },
      authenticationSchemes: [
        {
          type: 'oauthbearertoken',
          name: 'Bearer token',
          description: "The directory's SCIM token (Authorization: Bearer scim_…), issued by a platform admin",
          primary: true,
        },
      ],
      meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/scim/v2/ServiceProviderConfig` },
    });
  });
  router.get('/ResourceTypes', (_req, res) => sendScim(res, list(types)));
  router.get('/ResourceTypes/:name', (req, res) => {
    const type = types.find((t) => t.id === req.params.name);
    if (!type) throw errors.notFound('ResourceType', req.params.name as string);
    sendScim(res, type);
  });
  router.get('/Schemas', (_req, res) => sendScim(res, list(schemas)));
  router.get('/Schemas/:id', (req, res) => {
    const schema = schemas.find((s) => s.id.toLowerCase() === String(req.params.id).toLowerCase());
    if (!schema) throw errors.notFound('Schema', req.params.id as string);
    sendScim(res, schema);
  });
}
