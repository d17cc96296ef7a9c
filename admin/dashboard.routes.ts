// The dashboard's own routes: MFA enrolment for the signed-in admin, through the API's auth service
// (the same steps as POST /api/auth/mfa/enrollment and /verify).
import { Router, type Request } from 'express';
import type { AppContext as Container } from '../src/app-context.ts';
import { AppError } from '../src/shared/errors.ts';
import { portalActor, type PortalAdmin } from './portal-actor.ts';

const sessionOf = (req: Request) =>
  req.session as unknown as { adminUser?: PortalAdmin; save(cb: (err?: unknown) => void): void };

/** AdminJS's router parses every body with express-formidable (into req.fields), JSON included. */
const codeOf = (req: Request) =>
  String((req as Request & { fields?: Record<string, unknown> }).fields?.code ?? '').trim();

export function dashboardRoutes(container: Container): Router {
  const { auth } = container.services;
  const router = Router();
  // the API's refusal in the dashboard's shape, with its headers (a throttled code's Retry-After)
  const refusal = (error: unknown) =>
    error instanceof AppError
      ? {
          status: error.status,
          headers: error.extras.headers ?? {},
          body: { code: error.code, message: error.message },
        }
      : null;

  router.post('/mfa/enrollment', async (req, res) => {
    try {
      const { secret, otpauthUri } = await auth.enrollMfa(await portalActor(sessionOf(req).adminUser));
      res.json({ secret, otpauthUri });
    } catch (error) {
      const known = refusal(error);
      if (!known) throw error;
      res.status(known.status).set(known.headers).json(known.body);
    }
  });

  router.post('/mfa/verify', async (req, res) => {
    const session = sessionOf(req);
    try {
      await auth.verifyMfa(await portalActor(session.adminUser), codeOf(req));
    } catch (error) {
      const known = refusal(error);
      if (!known) throw error;
      res.status(known.status).set(known.headers).json(known.body);
      return;
    }
    // the code just checked is a second factor for this session too
    session.adminUser = { ...session.adminUser!, mfaVerified: true };
    await new Promise<void>((resolve, reject) => session.save((err) => (err ? reject(err) : resolve())));
    res.json({ mfaEnabled: true });
  });
  return router;
}
