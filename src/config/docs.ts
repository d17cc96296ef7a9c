// What the generated configuration docs (README table, .env.example; scripts/config-docs.ts) say
// about each variable, read from the schema itself so they cannot say something else.
import * as z from 'zod';
import { docs, formats } from './kinds.ts';
import { groups } from './variables.ts';

export interface VariableEntry {
  group: string;
  name: string;
  description: string;
  /** What the variable accepts ("integer 1–1024"). */
  format: string;
  /** The default as it would be written in the environment ('' for an empty one), if it is fixed. */
  fixedDefault?: string;
  /** A default that depends on other settings, in words. */
  computedDefault?: string;
  example?: string;
  /** Without a default and not optional: the service does not start without it. */
  required: boolean;
}

function formatOf(schema: z.core.$ZodType, name: string): string {
  const own = formats.get(schema)?.format;
  if (own !== undefined) return own;
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodPrefault) return formatOf(schema.unwrap(), name);
  throw new Error(`${name}: its kind has no documented format (declare it with a helper of src/config/kinds.ts)`);
}

export function variableEntries(): VariableEntry[] {
  return Object.entries(groups).flatMap(([group, shape]) =>
    Object.entries(shape).map(([name, schema]: [string, z.ZodType]): VariableEntry => {
      const doc = docs.get(schema);
      if (doc === undefined) throw new Error(`${name} has no description (declare it with described())`);
      return {
        group,
        name,
        description: doc.description,
        format: formatOf(schema, name),
        fixedDefault: schema instanceof z.ZodPrefault ? String(schema.def.defaultValue) : undefined,
        computedDefault: doc.computedDefault,
        example: doc.example,
        required: !schema.safeParse(undefined).success,
      };
    }),
  );
}
