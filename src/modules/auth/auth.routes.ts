import type { Router } from 'express';
import { actorOf } from '../../http/context.ts';
import type { components } from '../../types/openapi.d.ts';
import { toCurrentUser } from '../users/index.ts';
import type { AuthService, Session } from './auth.service.ts';

type TokenResponse = components['schemas']['TokenResponse'];

const toTokenResponse = (session: Session): TokenResponse => ({
  accessToken: session.token,
  tokenType: 'Bearer',
  expiresIn: session.expiresIn,
  expiresAt: session.expiresAt.toISOString(),
  mfaVerified: session.mfaVerified,
  user: toCurrentUser(session.user),
});

export function authRoutes(router: Router, auth: AuthService): void {
  router.post('/api/auth/login', async (req, res) => {
    res.json(toTokenResponse(await auth.login(req.body)));
  });
  router.get('/api/auth/me', async (req, res) => {
    const actor = actorOf(req);
    res.json(toCurrentUser(await auth.currentUser(actor), actor));
  });
  router.post('/api/auth/mfa/enrollment', async (req, res) => {
    res.status(201).json(await auth.enrollMfa(actorOf(req)));
  });
  router.post('/api/auth/mfa/verify', async (req, res) => {
    res.json(toTokenResponse(await auth.verifyMfa(actorOf(req), req.body.code)));
  });
}
