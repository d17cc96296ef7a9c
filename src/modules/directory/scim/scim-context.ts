// What the SCIM resource routes share: the directory of the request and the services they call.
import type { Request } from 'express';
import { actorOf } from '../../../http/context.ts';
import { errors } from '../../../shared/errors.ts';
import { isUuid } from '../../../shared/uuid.ts';
import type { Directory } from '../directory.model.ts';
import type { DirectoryProvisioning } from '../directory-provisioning.service.ts';
import type { DirectoryService } from '../directory.service.ts';
import type { ScimRepository } from './scim-repository.ts';

export interface ScimContext {
  directories: DirectoryService;
  provisioning: DirectoryProvisioning;
  repository: ScimRepository;
  baseUrl: string;
}

/** The directory whose token the request carries. */
export const directoryOf = (context: ScimContext, req: Request): Promise<Directory> =>
  context.directories.ofActor(actorOf(req));

/** The `:id` of the path: not one of our ids is simply not found (never a database error). */
export function idOf(req: Request, resource: 'User' | 'Group'): string {
  const id = req.params.id as string;
  if (!isUuid(id)) throw errors.notFound(resource, id);
  return id;
}
