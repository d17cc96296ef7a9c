import type { Router } from 'express';
import type { AppEnv, Plan } from '../../config.ts';
import { actorOf } from '../../http/context.ts';
import { sendPage } from '../../http/respond.ts';
import { mapPage, pageRequest } from '../../shared/pagination.ts';
import { toOrganizationDto } from './organization.mapper.ts';
import type { OrganizationStatus } from './organization.model.ts';
import type { OrganizationFilter } from './organization.repository.ts';
import type { OrganizationService } from './organization.service.ts';

/** `status=active,suspended` or `status[]=active&status[]=suspended`: the validator has checked each value. */
const many = <T extends string>(value: unknown): T[] | undefined =>
  value === undefined
    ? undefined
    : (Array.isArray(value) ? value : String(value).split(',')).map((item) => String(item).trim() as T);

function organizationFilter(query: Record<string, unknown>): OrganizationFilter {
  return {
    q: typeof query.q === 'string' && query.q.trim() ? query.q.trim() : undefined,
    statuses: many<OrganizationStatus>(query.status),
    plans: many<Plan>(query.plan),
    environment: query.environment as AppEnv | undefined,
  };
}

export function organizationRoutes(router: Router, organizations: OrganizationService): void {
  router.get('/api/admin/organizations', async (req, res) => {
    const page = await organizations.list(actorOf(req), organizationFilter(req.query), pageRequest(req.query));
    sendPage(req, res, mapPage(page, toOrganizationDto));
  });
  router.post('/api/admin/organizations', async (req, res) => {
    const created = await organizations.create(actorOf(req), req.body);
    res.status(201).setHeader('Location', `/api/admin/organizations/${created.id}`).json(toOrganizationDto(created));
  });
  router.get('/api/admin/organizations/:id', async (req, res) => {
    res.json(toOrganizationDto(await organizations.get(actorOf(req), req.params.id)));
  });
  router.put('/api/admin/organizations/:id', async (req, res) => {
    res.json(toOrganizationDto(await organizations.update(actorOf(req), req.params.id, req.body)));
  });
}
