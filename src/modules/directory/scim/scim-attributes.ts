// `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5, §3.10): names as the RFC writes them,
// `userName` or `name.givenName`, or qualified by their schema's URN (`urn:…:core:2.0:User:userName`;
// an extension's attributes only so, `urn:…:enterprise:2.0:User:department`, or the whole extension by
// its URN), case-insensitive, split as the filter's attribute paths are. A sub-attribute narrows a
// complex or multi-valued attribute to it (`emails.value`: each address's value only). id, schemas
// and meta are always returned.
import type { Request } from 'express';
import { attrPath, CORE_SCHEMAS } from './scim-filter.ts';
import { ENTERPRISE_USER_SCHEMA } from './scim-patch.ts';

const EXTENSION = ENTERPRISE_USER_SCHEMA.toLowerCase();
const ALWAYS = new Set(['id', 'schemas', 'meta']);

/** A name as [attribute] or [attribute, sub-attribute], lower case; an extension's URN is its attribute's key. */
function pathOf(name: string): string[] {
  const lower = name.trim().toLowerCase();
  if (lower === EXTENSION) return [EXTENSION];
  let segments: string[];
  try {
    segments = attrPath(lower).segments;
  } catch {
    return [lower]; // names no attribute: matches none
  }
  const [first, ...rest] = segments;
  return CORE_SCHEMAS.includes(first!) ? rest : segments;
}

function pathsOf(req: Request, parameter: 'attributes' | 'excludedAttributes'): string[][] | null {
  const raw = req.query[parameter];
  if (typeof raw !== 'string' || !raw.trim()) return null;
  return raw
    .split(',')
    .filter((name) => name.trim())
    .map(pathOf);
}

/** Whether the client asked to leave an attribute out whole (`excludedAttributes=members`): not read then. */
export function excludes(req: Request, attribute: string): boolean {
  const name = attribute.toLowerCase();
  const excluded = pathsOf(req, 'excludedAttributes');
  const only = pathsOf(req, 'attributes');
  return Boolean(
    excluded?.some((path) => path.length === 1 && path[0] === name) || (only && !only.some((path) => path[0] === name)),
  );
}

type Resource = Record<string, unknown>;

/** A complex value (or each of a multi-valued one's) with only the sub-attributes `keep` keeps. */
function narrow(value: unknown, keep: (subAttribute: string) => boolean): unknown {
  const one = (item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).filter(([key]) => keep(key.toLowerCase())))
      : item;
  return Array.isArray(value) ? value.map(one) : one(value);
}

/**
 * The request's projection, its parameters read once for a page of resources: each resource with only
 * the attributes asked for, then without those excluded; id, schemas and meta stay.
 */
export function projection(req: Request): (resource: Resource) => Resource {
  const only = pathsOf(req, 'attributes');
  const excluded = pathsOf(req, 'excludedAttributes');
  if (!only && !excluded) return (resource) => resource;
  return (resource) => {
    const projected: Resource = {};
    for (const [key, value] of Object.entries(resource)) {
      const name = key.toLowerCase();
      if (ALWAYS.has(name)) {
        projected[key] = value;
        continue;
      }
      const asked = only?.filter((path) => path[0] === name);
      if (asked && asked.length === 0) continue;
      const left = excluded?.filter((path) => path[0] === name) ?? [];
      if (left.some((path) => path.length === 1)) continue;
      let kept = value;
      if (asked && !asked.some((path) => path.length === 1))
        kept = narrow(kept, (sub) => asked.some((path) => path[1] === sub));
      if (left.length) kept = narrow(kept, (sub) => !left.some((path) => path[1] === sub));
      projected[key] = kept;
    }
    return projected;
  };
}
