import { defineEvents } from '../../shared/domain-events/domain-event.ts';

/** What the events (calendar) module announces; data is the event as the API shows it. */
export const eventEvents = defineEvents({
  'event.created': { public: true, description: 'An event was created.' },
  'event.updated': { public: true, description: 'An event was changed (including publication and cancellation).' },
  'event.deleted': { public: true, description: 'An event was deleted; data is the event as it was.' },
});
