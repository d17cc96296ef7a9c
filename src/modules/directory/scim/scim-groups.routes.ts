// /Groups: create (with members), read (members unless excludedAttributes=members), list with a filter,
// replace, patch (members added and removed one by one, never the whole group rewritten), delete.
// Membership drives roles: provisioning recomputes them on every change.
import type { Router } from 'express';
import { errors } from '../../../shared/errors.ts';
import type { Directory } from '../directory.model.ts';
import type { DirectoryGroupRow } from '../directory-provisioning.service.ts';
import { type ScimContext, directoryOf, idOf } from './scim-context.ts';
import { planGroupPatch } from './scim-group-patch.ts';
import { groupInput, renderGroup } from './scim-group.mapper.ts';
import { answeredNotModified, assertIfMatch, etagOf, listQuery, sendList, sendResource } from './scim-http.ts';
import { excludes, projection } from './scim-attributes.ts';
import { parsePatchOp } from './scim-patch.ts';

export function scimGroupRoutes(router: Router, context: ScimContext): void {
  const { provisioning, repository, baseUrl } = context;

  async function groupOf(directory: Directory, id: string): Promise<DirectoryGroupRow> {
    const row = await provisioning.groups.findGroup(directory, id);
    if (!row) throw errors.notFound('Group', id);
    return row;
  }

  const render = async (row: DirectoryGroupRow) => renderGroup(row, await repository.members(row.id), baseUrl);

  router.get('/Groups', async (req, res) => {
    const directory = await directoryOf(context, req);
    const query = listQuery(req);
    const { rows, total } = await repository.groups(directory, query, !excludes(req, 'members'));
    const shape = projection(req);
    sendList(
      res,
      query,
      total,
      rows.map((row) => shape(renderGroup(row, row.members, baseUrl))),
    );
  });

  router.post('/Groups', async (req, res) => {
    const directory = await directoryOf(context, req);
    const { group, memberIds } = groupInput(req.body);
    const row = await provisioning.groups.createGroup(directory, group, memberIds ?? []);
    sendResource(res, 201, await render(row), row.version);
  });

  router.get('/Groups/:id', async (req, res) => {
    const row = await groupOf(await directoryOf(context, req), idOf(req, 'Group'));
    if (answeredNotModified(req, res, row.version)) return;
    const members = excludes(req, 'members') ? null : await repository.members(row.id);
    sendResource(res, 200, projection(req)(renderGroup(row, members, baseUrl)), row.version);
  });

  // members left out of a PUT stay as they are (RFC 7644 lets the server keep them): a client renaming
  // a group without listing thousands of members must not empty it and take everyone's role away
  router.put('/Groups/:id', async (req, res) => {
    const directory = await directoryOf(context, req);
    const id = idOf(req, 'Group');
    assertIfMatch(req, (await groupOf(directory, id)).version);
    const { group, memberIds } = groupInput(req.body);
    const row = await provisioning.groups.replaceGroup(directory, id, group, memberIds);
    sendResource(res, 200, await render(row), row.version);
  });

  // 204 as Entra ID and Okta expect: the answer would otherwise list every member of a large group
  router.patch('/Groups/:id', async (req, res) => {
    const directory = await directoryOf(context, req);
    const id = idOf(req, 'Group');
    const current = await groupOf(directory, id);
    assertIfMatch(req, current.version);
    const plan = planGroupPatch(parsePatchOp(req.body));
    if (plan.displayName !== undefined || plan.externalId !== undefined) {
      const group = {
        displayName: plan.displayName ?? current.displayName,
        externalId: plan.externalId === undefined ? current.externalId : plan.externalId,
      };
      await provisioning.groups.replaceGroup(directory, id, group, null);
    }
    let { add, remove } = plan;
    if (plan.replace) {
      const before = new Set(await provisioning.groups.groupMemberIds(id));
      add = new Set([...plan.replace].filter((member) => !before.has(member)));
      remove = new Set([...before].filter((member) => !plan.replace!.has(member)));
    }
    await provisioning.groups.addMembers(directory, id, [...add]);
    await provisioning.groups.removeMembers(directory, id, [...remove]);
    res.setHeader('ETag', etagOf((await groupOf(directory, id)).version));
    res.status(204).end();
  });

  router.delete('/Groups/:id', async (req, res) => {
    const directory = await directoryOf(context, req);
    const id = idOf(req, 'Group');
    assertIfMatch(req, (await groupOf(directory, id)).version);
    await provisioning.groups.deleteGroup(directory, id);
    res.status(204).end();
  });
}
