// Each module owns its event catalog; the public kinds, and only they, are the contract's webhooks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { domainEventCatalog, moduleEventCatalogs } from '../../src/domain-events.ts';
import { loadContract } from '../../src/http/openapi.ts';
import { webhookEventTypes } from '../../src/modules/webhooks/webhook.catalog.ts';
import { DomainEvents } from '../../src/shared/domain-events/domain-events.ts';
import { defineEvents, publicEventsOf } from '../../src/shared/domain-events/domain-event.ts';

const contract = loadContract().document as unknown as { webhooks: Record<string, unknown> };

describe('domain event catalogs', () => {
  it('when the catalogs are merged, then every kind has one owning module and a description', () => {
    const kinds = moduleEventCatalogs.flatMap((catalog) => Object.keys(catalog));
    assert.equal(new Set(kinds).size, kinds.length, 'a kind declared by two modules');
    assert.deepEqual(Object.keys(domainEventCatalog).sort(), [...kinds].sort());
    for (const [type, kind] of Object.entries(domainEventCatalog)) {
      assert.match(type, /^[a-z][a-z-]*(\.[a-z][a-z_-]*)+$/);
      assert.ok(kind.description.length > 10, type);
    }
  });

  it('when the contract is read, then its webhooks section lists exactly the public kinds', () => {
    const publicKinds = Object.entries(domainEventCatalog)
      .filter(([, kind]) => kind.public)
      .map(([type]) => type)
      .sort();
    // what the webhooks module offers is read from the outbox the catalogs are declared to
    const outbox = new DomainEvents({} as ConstructorParameters<typeof DomainEvents>[0]).declare(domainEventCatalog);
    assert.deepEqual(Object.keys(webhookEventTypes(outbox)).sort(), publicKinds);
    assert.deepEqual(Object.keys(contract.webhooks).sort(), publicKinds);
  });

  it('when a kind is private, then it is not offered to webhook subscribers', () => {
    const catalog = defineEvents({
      'library.document-ingested': { public: true, description: 'A document is searchable.' },
      'library.chunks-replaced': { public: false, description: 'Internal: search must re-index a document.' },
    });
    assert.deepEqual(publicEventsOf(catalog), { 'library.document-ingested': 'A document is searchable.' });
  });
});
