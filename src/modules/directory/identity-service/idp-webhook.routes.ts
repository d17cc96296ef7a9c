// POST /webhooks/idp: the identity service's signed events. Placeholder: being built.
import type { InboundWebhookRouter } from '../../../http/surfaces/surface-routes.ts';
import type { DirectoryProvisioning } from '../directory-provisioning.service.ts';
import type { DirectoryService } from '../directory.service.ts';

export interface IdpWebhookRouteDeps {
  directories: DirectoryService;
  provisioning: DirectoryProvisioning;
}

export function idpWebhookRoutes(_router: InboundWebhookRouter, _deps: IdpWebhookRouteDeps): void {}
