import { defineEvents } from '../../shared/domain-events/domain-event.ts';

/** What the organizations module announces (platform-internal: not webhook events); data is the organization's settings with its id. */
export const organizationEvents = defineEvents({
  'organization.created': { public: false, description: 'A platform admin created an organization.' },
  'organization.updated': {
    public: false,
    description: "An organization's name, slug, plan, environment or status changed.",
  },
  'organization.suspended': {
    public: false,
    description: 'An organization was suspended: its users and API keys are refused.',
  },
  'organization.reactivated': { public: false, description: 'A suspended organization was made active again.' },
});
