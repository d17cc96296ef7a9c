// Reads openapi.yaml for the cross-tenant test: which operations address one record, which list
// records, and a minimal valid body for each (so a refusal is the handler's 404, not the validator's 400).
import { randomUUID } from 'node:crypto';
import { loadContract } from '../../src/http/openapi.ts';

type Schema = Record<string, any>;
export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type Method = (typeof METHODS)[number];

export interface Operation {
  method: Method;
  template: string;
  /** A body the validator accepts, when the operation takes one. */
  body?: unknown;
  /** The headers the operation requires (`Tus-Resumable`), sampled like bodies. */
  headers: Record<string, string>;
}

const { document } = loadContract();
const contract = document as unknown as {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Schema> };
};

function resolve(schema: Schema): Schema {
  let current = schema;
  while (current.$ref) current = contract.components.schemas[String(current.$ref).split('/').pop()!]!;
  return current;
}

const parameterOf = (parameter: Schema): Schema =>
  parameter.$ref ? contract.components.parameters[String(parameter.$ref).split('/').pop()!]! : parameter;

function requiredHeaders(item: Schema, operation: Schema): Record<string, string> {
  const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(parameterOf);
  return Object.fromEntries(
    parameters.filter((p) => p.in === 'header' && p.required).map((p) => [p.name, String(sample(p.schema ?? {}))]),
  );
}

/** The smallest value a schema accepts: required properties only, enums' first value, formats honoured. */
export function sample(input: Schema): unknown {
  const schema = resolve(input);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part: Schema) => sample(part)));
  if (schema.oneOf ?? schema.anyOf) return sample((schema.oneOf ?? schema.anyOf)[0]);
  if (schema.enum) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      let names: string[] = schema.required ?? [];
      // "at least one property": prefer an enumerated one (a status), which needs no outside world
      if (names.length < (schema.minProperties ?? 0)) {
        const enumerated = Object.keys(properties).filter((name) => resolve(properties[name]!).enum);
        names = [
          ...names,
          ...(enumerated.length ? enumerated : Object.keys(properties)).slice(0, schema.minProperties),
        ];
      }
      return Object.fromEntries(names.map((name) => [name, sample(properties[name]!)]));
    }
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () => sample(schema.items ?? {}));
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return false;
    default:
      return stringFor(schema);
  }
}

function stringFor(schema: Schema): string {
  switch (schema.format) {
    case 'email':
      return `someone-${randomUUID().slice(0, 8)}@example.test`;
    case 'uri':
      return 'https://example.test/hook';
    case 'uuid':
      return randomUUID();
    case 'date':
      return '2026-06-01';
    case 'date-time':
      return '2026-06-01T09:00:00Z';
    default:
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  }
}

/** Every operation of the contract, with a sample body for those that take JSON. */
export function operations(): Operation[] {
  return Object.entries(contract.paths).flatMap(([template, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const schema = item[method]!.requestBody?.content?.['application/json']?.schema;
      return {
        method,
        template,
        headers: requiredHeaders(item, item[method]!),
        ...(schema ? { body: sample(schema) } : {}),
      };
    }),
  );
}

/** Whether the operation's 200 answer is a paged list ({data, pagination}). */
export function isList(operation: Operation): boolean {
  const schema =
    contract.paths[operation.template]![operation.method]!.responses?.['200']?.content?.['application/json']?.schema;
  return Boolean(schema && resolve(schema).properties?.pagination);
}
