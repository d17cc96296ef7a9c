// The names behind the ids an audit entry holds (its actor, impersonator, organization and target),
// looked up in one query for a page of entries: the audit log's list and page, and the dashboard's
// recent events. A kind without a table of its own (the system, the identity service) has a label.
import type { Sql } from '../../src/shared/sql.ts';

/** Where each named kind's name is read, and what follows it so the kind is plain ("Demo key (API key)"). */
const SOURCES = {
  user: { table: 'users', name: "first_name || ' ' || last_name", suffix: '' },
  organization: { table: 'organizations', name: 'name', suffix: '' },
  api_key: { table: 'api_keys', name: 'name', suffix: ' (API key)' },
  directory: { table: 'directories', name: 'name', suffix: ' (directory)' },
} as const;
type NamedKind = keyof typeof SOURCES;
const KINDS = Object.keys(SOURCES) as NamedKind[];
const isNamedKind = (kind: unknown): kind is NamedKind => typeof kind === 'string' && kind in SOURCES;

/** Actors without a row of their own. */
const LABELS: Record<string, string> = { system: 'System', identity_service: 'Identity service' };

export type NameOf = (kind: unknown, id: unknown) => string | undefined;

/** Looks up the names of the (kind, id) pairs given; the answer names those, and labels the others. */
export async function auditNames(sql: Sql, wanted: Array<[kind: unknown, id: unknown]>): Promise<NameOf> {
  const ids = new Map(KINDS.map((kind) => [kind, new Set<string>()]));
  for (const [kind, id] of wanted) if (id && isNamedKind(kind)) ids.get(kind)!.add(String(id));
  const asked = KINDS.filter((kind) => ids.get(kind)!.size > 0);
  const rows = asked.length
    ? await sql.rows<{ id: string; name: string; kind: NamedKind }>(
        asked
          .map(
            (kind, i) =>
              `SELECT id::text AS id, ${SOURCES[kind].name} AS name, '${kind}' AS kind
                 FROM ${SOURCES[kind].table} WHERE id::text = ANY($${i + 1}::text[])`,
          )
          .join(' UNION ALL '),
        asked.map((kind) => [...ids.get(kind)!]),
      )
    : [];
  const names = new Map(rows.map((row) => [`${row.kind}:${row.id}`, row.name + SOURCES[row.kind].suffix]));
  return (kind, id) => (id ? names.get(`${String(kind)}:${String(id)}`) : undefined) ?? LABELS[String(kind)];
}
