import { defineEvents } from '../../shared/domain-events/domain-event.ts';

/** What the courses module announces; data is the course as the API shows it. */
export const courseEvents = defineEvents({
  'course.created': { public: true, description: 'A course was created.' },
  'course.updated': { public: true, description: 'A course was changed (including publication).' },
  'course.deleted': { public: true, description: 'A course was deleted; data is the course as it was.' },
});
