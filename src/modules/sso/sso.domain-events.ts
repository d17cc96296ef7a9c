import { defineEvents } from '../../shared/domain-events/domain-event.ts';

/** The spec's SSO states; data is the connection's snapshot (no settings, no secrets). */
export const ssoEvents = defineEvents({
  'connection.activated': { public: true, description: 'An SSO connection was enabled: its people can sign in.' },
  'connection.deactivated': {
    public: true,
    description: 'An SSO connection was disabled or deleted: its sign-ins are refused ("Invalid connection").',
  },
});
