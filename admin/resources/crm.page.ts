// Platform Settings > CRM: every organization with a HubSpot connection (connected, needing
// reauthorization, or disconnected) and its status figures, read through CrmDiagnosticsService from
// stored state (no call to HubSpot). Choosing one loads its errors, mapping and runs from the portal's
// own routes (crm.routes.ts), where Retry is too.
import type { PageHandler } from 'adminjs';
import type { AppContext as Container } from '../../src/app-context.ts';
import type { CrmConnectionSummary } from '../../src/modules/crm/crm-diagnostics.service.ts';
import { portalActor } from '../portal-actor.ts';

export const CRM_PAGE = 'crm';
/** The page lists this many, by organization name. */
const SHOWN = 200;

export interface CrmPageData {
  connections: CrmConnectionSummary[];
  total: number;
}

export function crmPage(container: Container, component: string) {
  const { crmDiagnostics } = container.services;
  const handler: PageHandler = async (_request, _response, context): Promise<CrmPageData> => {
    const { rows, total } = await crmDiagnostics.connections(await portalActor(context.currentAdmin), { limit: SHOWN });
    return { connections: rows, total };
  };
  return { component, icon: 'Share2', handler };
}
