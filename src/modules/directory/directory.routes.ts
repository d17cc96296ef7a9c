import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import { sendPage } from '../../http/respond.ts';
import { mapPage, pageRequest } from '../../shared/pagination.ts';
import type { Directory } from './directory.model.ts';
import { toDirectoryDto, toDirectoryGroupDto, toDirectoryUserDto, toSyncRunDto } from './directory.mapper.ts';
import type { DirectoryService } from './directory.service.ts';

export function directoryRoutes(router: Router, directories: DirectoryService, scimUrl: string): void {
  const dtos = async (list: Directory[]) => {
    const counts = await directories.counts(list.map((d) => d.id));
    return list.map((d) => toDirectoryDto(d, counts.get(d.id), scimUrl));
  };
  const one = async (directory: Directory) => (await dtos([directory]))[0]!;

  router.get('/api/directories', async (req, res) => {
    const page = await directories.list(actorOf(req), pageRequest(req.query));
    sendPage(req, res, { data: await dtos(page.data), pagination: page.pagination });
  });
  router.get('/api/directories/:id', async (req, res) => {
    res.json(await one(await directories.get(actorOf(req), req.params.id)));
  });
  router.get('/api/directories/:id/users', async (req, res) => {
    sendPage(
      req,
      res,
      mapPage(await directories.users(actorOf(req), req.params.id, pageRequest(req.query)), toDirectoryUserDto),
    );
  });
  router.get('/api/directories/:id/groups', async (req, res) => {
    sendPage(
      req,
      res,
      mapPage(await directories.groups(actorOf(req), req.params.id, pageRequest(req.query)), toDirectoryGroupDto),
    );
  });
  router.post('/api/directories/:id/sync', async (req, res) => {
    res.status(202).json(toSyncRunDto(await directories.startSync(actorOf(req), req.params.id)));
  });

  router.post('/api/admin/directories', async (req, res) => {
    const { directory, token } = await directories.create(actorOf(req), req.body);
    res
      .status(201)
      .location(`/api/directories/${directory.id}`)
      .json({ ...(await one(directory)), token });
  });
  router.post('/api/admin/directories/:id/token', async (req, res) => {
    const { directory, token } = await directories.rotateToken(actorOf(req), req.params.id);
    res.json({ ...(await one(directory)), token });
  });
  router.delete('/api/admin/directories/:id/token', async (req, res) => {
    res.json(await one(await directories.revokeToken(actorOf(req), req.params.id)));
  });
}
