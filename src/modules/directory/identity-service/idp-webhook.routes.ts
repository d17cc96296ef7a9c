// POST /webhooks/idp: the identity service's signed events. The signature is checked before anything
// reads the body (with the Webhook Secret of the platform settings; none saved: 401, as for a wrong
// one). A verified event is recorded by id and queued in one transaction and acknowledged at once
// (200 {received: true}); a replay of an id already recorded gets the same answer and is not queued.
import type { Request } from 'express';
import { jsonPayload } from '../../../http/surfaces/inbound-webhook.surface.ts';
import type { InboundWebhookRouter } from '../../../http/surfaces/surface-routes.ts';
import type { Clock } from '../../../shared/clock.ts';
import { AppError, errors, type FieldError } from '../../../shared/errors.ts';
import type { IdpEnvelope, IdpEventsService } from './idp-events.service.ts';
import { SIGNATURE_HEADER, verifyIdpSignature } from './idp-signature.ts';

export interface IdpWebhookRouteDeps {
  events: Pick<IdpEventsService, 'receive'>;
  webhookSecret: () => Promise<string | null>;
  clock: Clock;
}

/** The spec's envelope: id and event (text), data (an object). */
function envelopeOf(payload: unknown): IdpEnvelope {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload))
    throw errors.validation([{ field: 'body', message: 'must be the event envelope (an object)' }]);
  const { id, event, data } = payload as Record<string, unknown>;
  const problems: FieldError[] = [];
  if (typeof id !== 'string' || id.length === 0 || id.length > 200)
    problems.push({ field: 'id', message: 'is required: the event id (at most 200 characters)' });
  if (typeof event !== 'string' || event.length === 0 || event.length > 100)
    problems.push({ field: 'event', message: 'is required: the event kind' });
  // required, as the contract's IdentityServiceEvent says: an event without it names nothing to act on
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    problems.push({ field: 'data', message: 'is required: the event data (an object)' });
  if (problems.length > 0) throw errors.validation(problems);
  return { id: id as string, event: event as string, data: data as Record<string, unknown> };
}

export function idpWebhookRoutes(router: InboundWebhookRouter, deps: IdpWebhookRouteDeps): void {
  router.receive('/idp', {
    verify: async (req: Request & { rawBody: Buffer }) => {
      const secret = await deps.webhookSecret();
      if (!secret) throw new AppError('unauthenticated', 'No Webhook Secret is configured for the identity service');
      verifyIdpSignature({
        header: req.get(SIGNATURE_HEADER),
        rawBody: req.rawBody,
        secret,
        now: deps.clock.now(),
      });
    },
    handle: async (req, res) => {
      await deps.events.receive(envelopeOf(jsonPayload(req)));
      res.status(200).json({ received: true });
    },
  });
}
