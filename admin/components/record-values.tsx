/// <reference lib="dom" />
// What a directory's and an SSO connection's record pages show alike: group → role as a table (or a
// sentence when nothing is mapped), dates as AdminJS shows the others, code in a grey box. Bundled for
// the browser: imports React and the design system only.
import React from 'react';
import { Text } from '@adminjs/design-system';

// as the users list names roles (src/modules/users/user.labels.ts)
export const ROLE_NAMES: Record<string, string> = {
  ROLE_CLIENT_ADMIN: 'Client Admin',
  ROLE_CLIENT_USER: 'Client User (staff)',
  ROLE_MEMBER: 'Member',
};
export const codeStyle = { fontFamily: 'monospace', background: '#f6f7fb', padding: '2px 6px', borderRadius: 4 };
const pad = (n: number) => String(n).padStart(2, '0');
/** As AdminJS shows the other dates: 2026-01-31 14:05, local time. */
export const dateOf = (value: unknown) => {
  const date = new Date(String(value));
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
};
const cell = { padding: '4px 24px 4px 0', textAlign: 'left' as const, verticalAlign: 'top' as const };

export function GroupRolesTable({ value, groupLabel }: { value: unknown; groupLabel: string }) {
  const rows = Array.isArray(value) ? (value as Array<{ group: string; role: string }>) : [];
  if (!rows.length) return <Text data-testid="group-roles">No groups mapped: every user gets the default role.</Text>;
  return (
    <table data-testid="group-roles">
      <thead>
        <tr>
          <th style={{ ...cell, fontWeight: 500 }}>{groupLabel}</th>
          <th style={{ ...cell, fontWeight: 500 }}>Role</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.group}>
            <td style={cell}>
              <span style={codeStyle}>{row.group}</span>
            </td>
            <td style={cell}>{ROLE_NAMES[row.role] ?? row.role}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
