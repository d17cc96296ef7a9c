// The CRM page's own routes (under /admin, after AdminJS's login check), each acting as the signed-in
// platform admin through CrmDiagnosticsService, as the API's diagnostics do:
//   GET  /crm/:organizationId          its connection and status, first page of errors, mapping, last runs
//   GET  /crm/:organizationId/errors   a page of errors (?page, ?type)
//   POST /crm/:organizationId/retry    { errorIds } -> { queued, unknown }
// A refusal answers its status with { code, message }, which the page shows as a notice.
import { Router, type Request, type Response } from 'express';
import type { AppContext as Container } from '../../src/app-context.ts';
import {
  type CrmConnectionSummary,
  type CrmErrorRow,
  type CrmRunRow,
  type CrmStatus,
  MAPPING_NOT_CHECKED,
  NOT_CONNECTED,
} from '../../src/modules/crm/crm-diagnostics.service.ts';
import type { MappingStatus } from '../../src/modules/crm/crm-mapping.check.ts';
import type { Actor } from '../../src/shared/access/actor.ts';
import type { AsJson } from '../../src/shared/as-json.ts';
import { AppError, errors } from '../../src/shared/errors.ts';
import { portalActor, type PortalAdmin } from '../portal-actor.ts';
import { isUuid } from './ids.ts';

/** Errors per page on the CRM page. */
export const CRM_ERRORS_PER_PAGE = 20;
const ERROR_TYPES = new Set(['contact_sync', 'company_sync', 'property_mapping', 'auth']);

interface ErrorPage {
  rows: CrmErrorRow[];
  total: number;
  page: number;
  itemsPerPage: number;
  type: string | null;
}

/**
 * The API answers "invalid" with a "Not checked" error for an entry HubSpot never judged; the page says
 * "not checked" instead of marking every row of an organization without HubSpot as wrong, and the
 * reason once above the table.
 */
type PortalMappingStatus = Omit<MappingStatus, 'status'> & { status: MappingStatus['status'] | 'not_checked' };
const forThePage = ({ error, ...entry }: MappingStatus): PortalMappingStatus =>
  error === MAPPING_NOT_CHECKED ? { ...entry, status: 'not_checked' } : { ...entry, ...(error ? { error } : {}) };

interface Detail {
  /** Named here too: an organization that never connected HubSpot has no connection to name it. */
  organizationName: string;
  connection: CrmConnectionSummary | null;
  status: CrmStatus;
  errors: ErrorPage;
  mapping: PortalMappingStatus[];
  mappingProblem: string | null;
  runs: CrmRunRow[];
}

/** What the page's components receive (they import these types only: the bundle takes no server code). */
export type CrmDetailData = AsJson<Detail>;
export type CrmErrorPage = AsJson<ErrorPage>;

const adminOf = (req: Request) => (req.session as unknown as { adminUser?: PortalAdmin }).adminUser;
/** AdminJS's router parses every body with express-formidable (into req.fields), JSON included. */
const fieldsOf = (req: Request) => (req as Request & { fields?: Record<string, unknown> }).fields ?? {};

function refuse(res: Response, error: unknown): void {
  if (!(error instanceof AppError)) throw error;
  res.status(error.status).json({ code: error.code, message: `${error.title}: ${error.message}` });
}

export function crmPortalRoutes(container: Container): Router {
  const diagnostics = container.services.crmDiagnostics;
  const router = Router();

  /** The actor, and an organization id that can be one (anything else is that organization's 404). */
  const inputs = async (req: Request) => {
    const actor = await portalActor(adminOf(req));
    const organizationId = String(req.params.organizationId);
    if (!isUuid(organizationId)) throw errors.notFound('Organization', organizationId);
    return { actor, organizationId };
  };
  const errorPage = async (actor: Actor, organizationId: string, query: Request['query']): Promise<ErrorPage> => {
    const page = Math.max(1, Number.parseInt(String(query.page ?? '1'), 10) || 1);
    const type = typeof query.type === 'string' && ERROR_TYPES.has(query.type) ? query.type : undefined;
    const { rows, total } = await diagnostics.errors(actor, organizationId, {
      page,
      itemsPerPage: CRM_ERRORS_PER_PAGE,
      type,
    });
    return { rows, total, page, itemsPerPage: CRM_ERRORS_PER_PAGE, type: type ?? null };
  };
  /** Checked against HubSpot while connected: a call that can be refused (budget in use, token refused). */
  const mapping = async (actor: Actor, organizationId: string) => {
    try {
      const entries = (await diagnostics.propertyMapping(actor, organizationId)).map(forThePage);
      const unchecked = entries.some((entry) => entry.status === 'not_checked');
      return { mapping: entries, mappingProblem: unchecked ? NOT_CONNECTED : null };
    } catch (error) {
      if (!(error instanceof AppError) || error.status === 403 || error.status === 401) throw error;
      return { mapping: [], mappingProblem: `${error.title}: ${error.message}` };
    }
  };

  router.get('/crm/:organizationId', async (req, res) => {
    try {
      const { actor, organizationId } = await inputs(req);
      const status = await diagnostics.status(actor, organizationId); // 404 for an unknown organization
      const [organization, { rows }, errors, checked, runs] = await Promise.all([
        container.services.organizations.get(actor, organizationId),
        diagnostics.connections(actor, { organizationId }),
        errorPage(actor, organizationId, req.query),
        mapping(actor, organizationId),
        diagnostics.runs(organizationId),
      ]);
      const detail = {
        organizationName: organization.name,
        connection: rows[0] ?? null,
        status,
        errors,
        ...checked,
        runs,
      };
      res.json(detail satisfies Detail);
    } catch (error) {
      refuse(res, error);
    }
  });

  router.get('/crm/:organizationId/errors', async (req, res) => {
    try {
      const { actor, organizationId } = await inputs(req);
      res.json(await errorPage(actor, organizationId, req.query));
    } catch (error) {
      refuse(res, error);
    }
  });

  router.post('/crm/:organizationId/retry', async (req, res) => {
    try {
      const { actor, organizationId } = await inputs(req);
      const raw = fieldsOf(req).errorIds;
      const errorIds = (Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [])
        .map((id) => String(id).trim())
        .filter(Boolean);
      res.json(await diagnostics.retry(actor, organizationId, errorIds));
    } catch (error) {
      refuse(res, error);
    }
  });
  return router;
}
