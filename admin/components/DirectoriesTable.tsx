/// <reference lib="dom" />
// Platform Settings > Directory Sync's list: each directory with its organization, provider, status, the
// token's prefix (or "revoked"), its users and groups, and its last sync and error. Imported by DirectorySync.
import React from 'react';
import { ViewHelpers } from 'adminjs';
import { Badge, Link, Table, TableBody, TableCell, TableHead, TableRow } from '@adminjs/design-system';
import { portalTime } from './portal-time.ts';

const h = new ViewHelpers();
const showUrl = (resourceId: string, recordId: string) =>
  h.recordActionUrl({ resourceId, recordId, actionName: 'show' });
const when = (date: string | null) => portalTime(date) || 'never';

export interface DirectoryRow {
  id: string;
  name: string;
  organizationId: string;
  organizationName: string | null;
  provider: 'scim' | 'identity_service';
  status: string;
  tokenPrefix: string | null;
  users: number;
  groups: number;
  lastSyncAt: string | null;
  lastError: string | null;
}

const DirectoriesTable: React.FC<{ rows: DirectoryRow[] }> = ({ rows }) => (
  <Table data-testid="directories">
    <TableHead>
      <TableRow>
        {['Organization', 'Name', 'Provider', 'Status', 'SCIM token', 'Users', 'Groups', 'Last sync', 'Last error'].map(
          (title) => (
            <TableCell key={title}>{title}</TableCell>
          ),
        )}
      </TableRow>
    </TableHead>
    <TableBody>
      {rows.map((d) => (
        <TableRow key={d.id} data-testid={`directory-${d.id}`}>
          <TableCell>
            <Link href={showUrl('organizations', d.organizationId)}>{d.organizationName ?? d.organizationId}</Link>
          </TableCell>
          <TableCell>
            <Link href={showUrl('directories', d.id)} data-testid="directory-link">
              {d.name}
            </Link>
          </TableCell>
          <TableCell>{d.provider === 'scim' ? 'SCIM' : 'Identity service'}</TableCell>
          <TableCell>
            <Badge size="sm" variant={d.status === 'active' ? 'success' : 'light'}>
              {d.status}
            </Badge>
          </TableCell>
          <TableCell>
            {d.tokenPrefix ? (
              <span style={{ fontFamily: 'monospace' }}>{d.tokenPrefix}…</span>
            ) : (
              <Badge size="sm" variant="danger">
                revoked
              </Badge>
            )}
          </TableCell>
          <TableCell>{d.users}</TableCell>
          <TableCell>{d.groups}</TableCell>
          <TableCell>{when(d.lastSyncAt)}</TableCell>
          <TableCell title={d.lastError ?? undefined}>
            {!d.lastError ? '—' : d.lastError.length > 80 ? `${d.lastError.slice(0, 79)}…` : d.lastError}
          </TableCell>
        </TableRow>
      ))}
    </TableBody>
  </Table>
);

export default DirectoriesTable;
