import { defineEvents } from '../../shared/domain-events/domain-event.ts';

/**
 * What the library announces; data is the resource as the API shows it to its managers. The public
 * kinds are webhooks; the others drive re-indexing and the staleness of generated media.
 */
export const resourceEvents = defineEvents({
  'resource.published': {
    public: true,
    description: 'A resource was published (uploaded as published, or a draft published).',
  },
  'resource.updated': {
    public: true,
    description: "A resource's metadata or file changed (a new file is a new version).",
  },
  'resource.deleted': {
    public: true,
    description: 'A resource was deleted with all its files; data is the resource as it was.',
  },
  'resource.version_added': {
    public: false,
    description: 'A new file version became current (ingestion and generated media react).',
  },
  'resource.unpublished': {
    public: false,
    description: 'A published resource went back to draft (retrieval drops it at once).',
  },
  'resource.entitlement_granted': {
    public: false,
    description: 'A purchase of a paid resource was recorded for a member; data is the entitlement.',
  },
  'resource.entitlement_revoked': {
    public: false,
    description: 'An entitlement was revoked; data is the entitlement, revoked.',
  },
});
