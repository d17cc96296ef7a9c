// Every module's domain event catalog. Each module owns its file (`<domain>.domain-events.ts`); the
// public kinds among them are the contract's `webhooks:` section (webhook.catalog.ts).
import { courseEvents } from './modules/courses/course.domain-events.ts';
import { eventEvents } from './modules/events/event.domain-events.ts';
import { memberEvents } from './modules/members/member.domain-events.ts';
import { organizationEvents } from './modules/organizations/organization.domain-events.ts';

export const moduleEventCatalogs = [memberEvents, eventEvents, courseEvents, organizationEvents] as const;

export const domainEventCatalog = { ...memberEvents, ...eventEvents, ...courseEvents, ...organizationEvents };
