// SCIM 2.0 server routes (RFC 7643/7644) on the SCIM surface (/scim/v2). Placeholder: being built.
import type { Router } from 'express';
import type { DirectoryProvisioning } from '../directory-provisioning.service.ts';
import type { DirectoryService } from '../directory.service.ts';

export interface ScimRouteDeps {
  directories: DirectoryService;
  provisioning: DirectoryProvisioning;
  baseUrl: string;
}

export function scimRoutes(_router: Router, _deps: ScimRouteDeps): void {}
