// The contract and the resource definitions describe the same filters, sorts and fields: a filter
// added to one and not the other fails here, not in a client.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadContract } from '../../src/http/openapi.ts';
import { courseResource } from '../../src/modules/courses/course.definition.ts';
import type { FieldSpec } from '../../src/modules/crud/crud.definition.ts';
import { eventResource } from '../../src/modules/events/event.definition.ts';
import { memberResource } from '../../src/modules/members/member.definition.ts';
import { domainEventCatalog } from '../../src/domain-events.ts';
import { publicEventsOf } from '../../src/shared/domain-events/domain-event.ts';

type Json = Record<string, any>;
const contract = loadContract().document as unknown as Json;
const deref = (node: Json): Json => {
  if (!node?.$ref) return node;
  const target = (node.$ref as string)
    .slice(2)
    .split('/')
    .reduce((at: Json, key) => at[key], contract);
  return deref(target);
};
const schemaName = (node: Json) => (node.$ref as string | undefined)?.split('/').pop();

const RANGE_SCHEMA = {
  date: 'DateFilter',
  datetime: 'DateTimeFilter',
  integer: 'IntegerRangeFilter',
  decimal: 'NumberRangeFilter',
} as Record<string, string>;

interface Described {
  path: string;
  fields: Readonly<Record<string, FieldSpec>>;
  writable: readonly string[];
  readOnly: readonly string[];
  csvColumns?: readonly string[];
}

function checkResource(definition: Described, single: string) {
  const list = contract.paths[definition.path].get;
  const parameters = (list.parameters as Json[]).map(deref).filter((p) => !['page', 'itemsPerPage'].includes(p.name));
  const filters = Object.entries(definition.fields).filter(([, spec]) => spec.filter);
  const declared = parameters.filter((p) => p.name !== 'order');
  assert.deepEqual(
    declared.map((p) => p.name).sort(),
    filters.map(([name]) => name).sort(),
    `${definition.path} filters`,
  );
  for (const [name, spec] of filters) {
    const parameter = declared.find((p) => p.name === name)!;
    if (spec.filter === 'exact') assert.equal(parameter.schema.type, 'array', `${name} takes several values`);
    if (spec.filter === 'partial') assert.equal(parameter.schema.type, 'string', `${name} is one text value`);
    if (spec.filter === 'date' || spec.filter === 'range') {
      assert.equal(parameter.style, 'deepObject', `${name} uses brackets`);
      assert.equal(schemaName(parameter.schema), RANGE_SCHEMA[spec.type], `${name} operators`);
    }
  }
  const order = parameters.find((p) => p.name === 'order')!;
  const sortable = Object.entries(definition.fields)
    .filter(([, spec]) => spec.sortable)
    .map(([name]) => name);
  assert.deepEqual(Object.keys(order.schema.properties).sort(), sortable.sort(), `${definition.path} sorts`);

  const input = contract.components.schemas[`${single}Input`];
  const readOnly = Object.keys(input.properties).filter((key) => schemaName(input.properties[key]) === 'ReadOnlyField');
  assert.deepEqual(readOnly.sort(), [...definition.readOnly].sort(), `${single} read-only fields`);
  assert.deepEqual(
    Object.keys(input.properties)
      .filter((k) => !readOnly.includes(k))
      .sort(),
    [...definition.writable].sort(),
    `${single} writable fields`,
  );
  const output = Object.keys(contract.components.schemas[single].properties);
  assert.deepEqual([...definition.csvColumns!, 'organizationId'].sort(), output.sort(), `${single} CSV columns`);
}

describe('contract and definitions agree', () => {
  it('when the members list is declared, then its filters, sorts and fields match the definition', () =>
    checkResource(memberResource, 'Member'));
  it('when the events list is declared, then its filters, sorts and fields match the definition', () =>
    checkResource(eventResource, 'Event'));
  it('when the courses list is declared, then its filters, sorts and fields match the definition', () =>
    checkResource(courseResource, 'Course'));

  it('when the webhook catalog is published, then the enum and the webhooks section list exactly its event kinds', () => {
    const kinds = Object.keys(publicEventsOf(domainEventCatalog)).sort();
    assert.deepEqual([...contract.components.schemas.WebhookEventType.enum].sort(), kinds);
    assert.deepEqual(Object.keys(contract.webhooks).sort(), kinds);
    for (const kind of kinds) {
      const payload = deref(contract.webhooks[kind].post.requestBody.content['application/json'].schema);
      assert.ok(payload.properties.type.enum.includes(kind), `${kind} payload names its type`);
      assert.deepEqual(payload.required, ['type', 'timestamp', 'data']);
    }
  });
});
