import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import { sendPage } from '../../http/respond.ts';
import { mapPage, pageRequest } from '../../shared/pagination.ts';
import type { JobState } from './job-admin.repository.ts';
import type { JobAdminService } from './job-admin.service.ts';
import { toJobDto } from './job.mapper.ts';

export function jobAdminRoutes(router: Router, jobs: JobAdminService): void {
  router.get('/api/admin/jobs', async (req, res) => {
    const filter = { name: req.query.name as string | undefined, state: req.query.state as JobState | undefined };
    sendPage(req, res, mapPage(await jobs.list(actorOf(req), filter, pageRequest(req.query)), toJobDto));
  });
  router.get('/api/admin/jobs/:id', async (req, res) => {
    res.json(toJobDto(await jobs.get(actorOf(req), req.params.id)));
  });
}
