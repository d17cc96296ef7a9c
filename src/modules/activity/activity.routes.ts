import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import { sendPage } from '../../http/respond.ts';
import { parseDateRange } from '../../shared/date-range.ts';
import { mapPage, pageRequest } from '../../shared/pagination.ts';
import { toActivityEntry } from './activity.mapper.ts';
import type { ActivityService } from './activity.service.ts';

export function activityRoutes(router: Router, activity: ActivityService): void {
  router.get('/api/admin/users/:id/activity', async (req, res) => {
    const filter = {
      action: req.query.action as string | undefined,
      occurredAt: parseDateRange(req.query.occurredAt, 'occurredAt'),
    };
    const page = await activity.forUser(actorOf(req), req.params.id, filter, pageRequest(req.query));
    sendPage(req, res, mapPage(page, toActivityEntry));
  });
}
