// The permission table: who may call each operation, declared once in openapi.yaml as the
// operation's `x-guildhall-access` (the caller kinds allowed). The role × operation matrix
// (tests/contract/role-matrix.test.ts) sends every operation as every caller kind and checks the
// answer against it; docs/access.md carries it as a generated section, which the same test compares
// with the contract. Regenerate that section after changing an annotation:
//   npx tsx tests/support/access-table.ts --write
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CallerKind as GateKind } from '../../src/http/caller-gate.ts';
import { loadContract } from '../../src/http/openapi.ts';

type Schema = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The caller kinds an operation may allow, in the table's column order, with what each one is. */
export const CALLER_KINDS = {
  anonymous: 'no credential',
  member: 'a ROLE_MEMBER user',
  sponsor_admin: 'a ROLE_SPONSOR_ADMIN user',
  client_user: 'a ROLE_CLIENT_USER user (staff)',
  client_admin: 'a ROLE_CLIENT_ADMIN user',
  api_key: "the organization's API key",
  platform_admin: 'a ROLE_PLATFORM_ADMIN user (MFA verified, naming the organization in Guildhall-Organization)',
  impersonation: "a platform admin's read-only impersonation token of a client admin",
  directory: "a directory's SCIM token",
} as const satisfies Record<GateKind, string>;
export type CallerKind = keyof typeof CALLER_KINDS;
/** `any`: the operation does not read credentials (the browser's pages, the contract): everyone gets the same answer. */
export type AccessEntry = CallerKind | 'any';

/** Column headings of the published table. */
const HEADINGS: Record<CallerKind, string> = {
  anonymous: 'Anonymous',
  member: 'Member',
  sponsor_admin: 'Sponsor admin',
  client_user: 'Client user',
  client_admin: 'Client admin',
  api_key: 'API key',
  platform_admin: 'Platform admin',
  impersonation: 'Impersonation (read-only)',
  directory: 'SCIM token',
};

export interface AccessRow {
  method: (typeof METHODS)[number];
  template: string;
  tag: string;
  /** The caller kinds allowed; undefined when the operation declares no x-guildhall-access. */
  allowed?: AccessEntry[];
}

/** Every operation of the contract with the caller kinds it allows, in the contract's order. */
export function accessRows(): AccessRow[] {
  const { document } = loadContract();
  const paths = (document as unknown as { paths: Record<string, Record<string, Schema>> }).paths;
  return Object.entries(paths).flatMap(([template, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const operation = item[method]!;
      const declared = operation['x-guildhall-access'] as AccessEntry[] | undefined;
      return { method, template, tag: String(operation.tags?.[0] ?? ''), allowed: declared };
    }),
  );
}

export const GENERATED_START = '<!-- access-table:start (generated from openapi.yaml x-guildhall-access) -->';
export const GENERATED_END = '<!-- access-table:end -->';

/** The Markdown table of every operation × caller kind, grouped by the operation's first tag. */
export function renderAccessTable(rows: AccessRow[] = accessRows()): string {
  const kinds = Object.keys(CALLER_KINDS) as CallerKind[];
  const lines = [
    GENERATED_START,
    '',
    'Generated from `x-guildhall-access` in `openapi.yaml` (regenerate: `npx tsx tests/support/access-table.ts',
    '--write`); `tests/contract/role-matrix.test.ts` calls every operation as every caller kind and fails when',
    'an answer, or this section, differs. ✓: allowed (never refused with 401 or 403). Blank: refused, 401',
    'without a credential the operation takes, 403 with one (SCIM answers in its own error format). A',
    'malformed, expired or revoked credential is a 401 on every operation except those marked *any*, which do',
    "not read credentials at all. `POST /webhooks/idp` takes only the identity service's signature.",
    'Columns: anonymous (no credential); member, sponsor admin, client user, client admin and platform admin',
    '(a user of that role; the platform admin MFA-verified and naming the organization in',
    "`Guildhall-Organization`); API key (the organization's); impersonation (a platform admin's read-only",
    "impersonation token of a client admin); SCIM token (a directory's).",
    '',
    `| Operation | ${kinds.map((kind) => HEADINGS[kind]).join(' | ')} |`,
    `|---|${kinds.map(() => ':-:').join('|')}|`,
  ];
  let tag: string | undefined;
  for (const row of rows) {
    if (row.tag !== tag) {
      tag = row.tag;
      lines.push(`| **${tag}** |${kinds.map(() => ' ').join('|')}|`);
    }
    const any = row.allowed?.includes('any');
    const cells = kinds.map((kind) => (any ? 'any' : row.allowed?.includes(kind) ? '✓' : ' '));
    lines.push(`| \`${row.method.toUpperCase()} ${row.template}\` | ${cells.join(' | ')} |`);
  }
  lines.push('', GENERATED_END);
  return lines.join('\n');
}

export const ACCESS_DOC = fileURLToPath(new URL('../../docs/access.md', import.meta.url));

/** The generated section as docs/access.md holds it now (undefined when it has none). */
export function publishedAccessTable(text = readFileSync(ACCESS_DOC, 'utf8')): string | undefined {
  const start = text.indexOf(GENERATED_START);
  const end = text.indexOf(GENERATED_END);
  if (start < 0 || end < start) return undefined;
  return text.slice(start, end + GENERATED_END.length);
}

/** docs/access.md with its generated section replaced by the contract's table. */
export function withAccessTable(text: string): string {
  const published = publishedAccessTable(text);
  if (!published) throw new Error(`docs/access.md has no ${GENERATED_START} ... ${GENERATED_END} section`);
  return text.replace(published, renderAccessTable());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = readFileSync(ACCESS_DOC, 'utf8');
  const updated = withAccessTable(text);
  if (process.argv.includes('--write')) {
    writeFileSync(ACCESS_DOC, updated);
    console.log(updated === text ? 'docs/access.md: up to date' : 'docs/access.md: table rewritten');
  } else if (updated !== text) {
    console.error('docs/access.md: the access table differs from openapi.yaml; run with --write');
    process.exitCode = 1;
  }
}
