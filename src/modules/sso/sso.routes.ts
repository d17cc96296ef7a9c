import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import { sendPage } from '../../http/respond.ts';
import { mapPage, pageRequest } from '../../shared/pagination.ts';
import type { components } from '../../types/openapi.d.ts';
import { toCurrentUser } from '../users/index.ts';
import type {
  IdentityServiceSettingsService,
  IdentityServiceSettingsView,
} from './identity-service-settings.service.ts';
import type { SsoConnectionService } from './sso-connection.service.ts';
import type { SsoLoginService } from './sso-login.service.ts';
import type { SsoPolicy, SsoPolicyService } from './sso-policy.service.ts';
import { toConnectionDto } from './sso.mapper.ts';
import type { SsoConnection } from './sso-connection.model.ts';

type SettingsDto = components['schemas']['IdentityServiceSettings'];

const toSettingsDto = (view: IdentityServiceSettingsView): SettingsDto => ({
  ...view,
  updatedAt: view.updatedAt?.toISOString() ?? null,
});

const toPolicyDto = (policy: SsoPolicy): components['schemas']['SsoPolicy'] => ({
  ...policy,
  updatedAt: policy.updatedAt?.toISOString() ?? null,
});

export interface SsoRouteServices {
  connections: SsoConnectionService;
  login: SsoLoginService;
  policy: SsoPolicyService;
  identityServiceSettings: IdentityServiceSettingsService;
}

/**
 * The spec reads connections with POST (`POST /api/auth/sso/connections` lists, `…/{id}` returns one);
 * writes live beside them under /api/sso/connections so that no path means two things.
 */
export function ssoRoutes(
  router: Router,
  { connections, login, policy, identityServiceSettings }: SsoRouteServices,
): void {
  const dto = (connection: SsoConnection) => toConnectionDto(connection, connections.urlsOf(connection.id));

  router.post('/api/auth/sso/connections', async (req, res) => {
    const page = await connections.list(actorOf(req), pageRequest(req.query));
    sendPage(req, res, mapPage(page, dto));
  });
  router.post('/api/auth/sso/connections/:id', async (req, res) => {
    res.json(dto(await connections.get(actorOf(req), req.params.id)));
  });
  router.post('/api/auth/sso/token', async (req, res) => {
    const session = await login.exchange(req.body.code);
    res.json({
      accessToken: session.token,
      tokenType: 'Bearer',
      expiresIn: session.expiresIn,
      expiresAt: session.expiresAt.toISOString(),
      mfaVerified: session.mfaVerified,
      user: toCurrentUser(session.user),
    });
  });

  router.post('/api/sso/connections', async (req, res) => {
    const connection = await connections.create(actorOf(req), req.body);
    res.status(201).location(`/api/auth/sso/connections/${connection.id}`).json(dto(connection));
  });
  router.patch('/api/sso/connections/:id', async (req, res) => {
    res.json(dto(await connections.update(actorOf(req), req.params.id, req.body)));
  });
  router.delete('/api/sso/connections/:id', async (req, res) => {
    await connections.remove(actorOf(req), req.params.id);
    res.status(204).end();
  });
  router.post('/api/sso/connections/:id/test', async (req, res) => {
    const { connection, ok, detail } = await connections.test(actorOf(req), req.params.id);
    res.json({ ok, detail, connection: dto(connection) });
  });
  router.post('/api/sso/connections/:id/enable', async (req, res) => {
    res.json(dto(await connections.enable(actorOf(req), req.params.id)));
  });
  router.post('/api/sso/connections/:id/disable', async (req, res) => {
    res.json(dto(await connections.disable(actorOf(req), req.params.id)));
  });

  router.get('/api/sso/policy', async (req, res) => {
    res.json(toPolicyDto(await policy.get(actorOf(req))));
  });
  router.put('/api/sso/policy', async (req, res) => {
    res.json(toPolicyDto(await policy.set(actorOf(req), req.body)));
  });

  router.get('/api/admin/integrations/identity-service', async (req, res) => {
    res.json(toSettingsDto(await identityServiceSettings.view(actorOf(req))));
  });
  router.put('/api/admin/integrations/identity-service', async (req, res) => {
    res.json(toSettingsDto(await identityServiceSettings.save(actorOf(req), req.body)));
  });
}
