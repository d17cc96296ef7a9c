import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import { pageRequest } from '../../shared/pagination.ts';
import type { components } from '../../types/openapi.d.ts';
import type { ConnectionRow, CrmConnectionService } from './crm-connection.service.ts';
import { type CrmDiagnosticsService, coarseScopes } from './crm-diagnostics.service.ts';
import type { CrmSyncService } from './crm-sync.service.ts';
import { mappingOf } from './crm-mapping.ts';
import { organizationOf } from './crm-connection.service.ts';

export interface CrmRouteServices {
  connections: CrmConnectionService;
  sync: CrmSyncService;
  diagnostics: CrmDiagnosticsService;
}

const iso = (value: Date | null | undefined) => (value ? new Date(value).toISOString() : null);

/** The organization's own view (Client Portal): no token, ever. */
const toConnectionDto = (row: ConnectionRow | undefined): components['schemas']['CrmConnection'] => ({
  status: row?.status ?? 'not_connected',
  hubId: row?.hub_id ?? null,
  portalName: row?.portal_name ?? null,
  scopes: row?.status === 'connected' ? coarseScopes(row.scopes) : [],
  tokenExpiresAt: row?.status === 'connected' ? iso(row.token_expires_at) : null,
  connectedAt: iso(row?.connected_at),
  lastSyncAt: iso(row?.last_sync_at),
  lastError: row?.last_error ?? null,
  deletePolicy: row?.delete_policy ?? 'mark',
  propertyMapping: [...mappingOf(row?.property_mapping ?? [])],
});

const dateParam = (value: unknown) => (typeof value === 'string' ? new Date(value) : undefined);

export function crmRoutes(router: Router, { connections, sync, diagnostics }: CrmRouteServices): void {
  router.get('/api/crm/connection', async (req, res) => {
    res.json(toConnectionDto(await connections.view(actorOf(req))));
  });
  router.post('/api/crm/connection', async (req, res) => {
    const { authorizeUrl, expiresAt } = await connections.start(actorOf(req));
    res.json({ authorizeUrl, expiresAt: expiresAt.toISOString() });
  });
  router.patch('/api/crm/connection', async (req, res) => {
    res.json(toConnectionDto(await connections.setOptions(actorOf(req), req.body)));
  });
  router.delete('/api/crm/connection', async (req, res) => {
    await connections.disconnect(actorOf(req));
    res.status(204).end();
  });
  router.post('/api/crm/sync', async (req, res) => {
    res.status(202).json(await sync.syncNow(actorOf(req)));
  });
  router.post('/api/crm/properties', async (req, res) => {
    const actor = actorOf(req);
    await connections.view(actor);
    res.json({ created: await diagnostics.createMissingProperties(organizationOf(actor)) });
  });

  router.get('/api/admin/integrations/crm/:organizationId/status', async (req, res) => {
    res.json(await diagnostics.status(actorOf(req), req.params.organizationId));
  });
  router.get('/api/admin/integrations/crm/:organizationId/errors', async (req, res) => {
    const { page, itemsPerPage } = pageRequest(req.query);
    const { rows, total } = await diagnostics.errors(actorOf(req), req.params.organizationId, {
      page,
      itemsPerPage,
      type: typeof req.query.type === 'string' ? req.query.type : undefined,
      since: dateParam(req.query.since),
      until: dateParam(req.query.until),
    });
    res.json({
      errors: rows.map((row) => ({
        id: row.id,
        type: row.type,
        crm_error: row.crm_error,
        property: row.property,
        record_id: row.record_id,
        timestamp: new Date(row.created_at).toISOString(),
        http_status: row.http_status,
        message: row.message,
      })),
      total,
      page,
    });
  });
  router.post('/api/admin/integrations/crm/:organizationId/retry', async (req, res) => {
    res.json(await diagnostics.retry(actorOf(req), req.params.organizationId, req.body.error_ids));
  });
  router.get('/api/admin/integrations/crm/:organizationId/property-mapping', async (req, res) => {
    res.json({ contact_properties: await diagnostics.propertyMapping(actorOf(req), req.params.organizationId) });
  });
}
