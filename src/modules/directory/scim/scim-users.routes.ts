// /Users: create, read, list with a filter, replace, patch (Entra ID's and Okta's dialects), delete.
// Provisioning owns the account behind each directory user (roles, deactivation, audit); these routes
// translate SCIM to its calls and its rows back to SCIM.
import type { Router } from 'express';
import { errors } from '../../../shared/errors.ts';
import type { Directory } from '../directory.model.ts';
import type { DirectoryUserRow } from '../directory-provisioning.service.ts';
import { type ScimContext, directoryOf, idOf } from './scim-context.ts';
import { projection } from './scim-attributes.ts';
import { answeredNotModified, assertIfMatch, listQuery, sendList, sendResource } from './scim-http.ts';
import { applyPatch, parsePatchOp } from './scim-patch.ts';
import { renderUser, storedUser, userInput } from './scim-user.mapper.ts';

/** A PATCH may not name these: ours (id, meta) or derived from group membership (groups). */
const READ_ONLY = ['id', 'meta', 'groups'];

export function scimUserRoutes(router: Router, context: ScimContext): void {
  const { provisioning, repository, baseUrl } = context;

  async function userOf(directory: Directory, id: string): Promise<DirectoryUserRow> {
    const row = await provisioning.users.findUser(directory, id);
    if (!row) throw errors.notFound('User', id);
    return row;
  }

  const render = async (row: DirectoryUserRow) =>
    renderUser(row, await provisioning.users.groupsOfUser(row.id), baseUrl);

  router.get('/Users', async (req, res) => {
    const directory = await directoryOf(context, req);
    const query = listQuery(req);
    const { rows, total } = await repository.users(directory, query);
    const shape = projection(req);
    sendList(
      res,
      query,
      total,
      rows.map((row) => shape(renderUser(row, row.groups, baseUrl))),
    );
  });

  router.post('/Users', async (req, res) => {
    const directory = await directoryOf(context, req);
    const row = await provisioning.users.createUser(directory, userInput(req.body));
    sendResource(res, 201, renderUser(row, [], baseUrl), row.version);
  });

  router.get('/Users/:id', async (req, res) => {
    const row = await userOf(await directoryOf(context, req), idOf(req, 'User'));
    if (answeredNotModified(req, res, row.version)) return;
    sendResource(res, 200, projection(req)(await render(row)), row.version);
  });

  // PUT, PATCH and DELETE check the ETag (and compute a patch) on the row as locked for the change
  router.put('/Users/:id', async (req, res) => {
    const directory = await directoryOf(context, req);
    const row = await provisioning.users.replaceUser(directory, idOf(req, 'User'), (current) => {
      assertIfMatch(req, current.version);
      return userInput(req.body);
    });
    sendResource(res, 200, renderUser(row, row.groups, baseUrl), row.version);
  });

  router.patch('/Users/:id', async (req, res) => {
    const directory = await directoryOf(context, req);
    const row = await provisioning.users.replaceUser(directory, idOf(req, 'User'), (current) => {
      assertIfMatch(req, current.version);
      return userInput(applyPatch(storedUser(current), parsePatchOp(req.body), READ_ONLY));
    });
    sendResource(res, 200, renderUser(row, row.groups, baseUrl), row.version);
  });

  router.delete('/Users/:id', async (req, res) => {
    const directory = await directoryOf(context, req);
    await provisioning.users.deleteUser(directory, idOf(req, 'User'), (current) => assertIfMatch(req, current.version));
    res.status(204).end();
  });
}
