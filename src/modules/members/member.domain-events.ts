import { defineEvents } from '../../shared/domain-events/domain-event.ts';

/** What the members module announces; data is the member as the API shows it. */
export const memberEvents = defineEvents({
  'member.created': { public: true, description: 'A member was created.' },
  'member.updated': { public: true, description: 'A member was changed.' },
  'member.deleted': { public: true, description: 'A member was deleted; data is the member as it was.' },
});
