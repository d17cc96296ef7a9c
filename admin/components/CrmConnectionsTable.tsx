/// <reference lib="dom" />
// Platform Settings > CRM's list: each organization with a HubSpot connection, its state, portal, hub
// id, last sync, contacts synced and failed, and today's calls against the daily limit. A row's
// organization name selects it (the page below shows its errors, mapping and runs).
import React from 'react';
import { Button, Table, TableBody, TableCell, TableHead, TableRow, Text } from '@adminjs/design-system';
import { type CrmConnection, StateBadge, count, when } from './CrmShared.tsx';

const CrmConnectionsTable: React.FC<{
  rows: CrmConnection[];
  selected: string | null;
  onSelect: (organizationId: string) => void;
}> = ({ rows, selected, onSelect }) => (
  <Table data-testid="crm-connections">
    <TableHead>
      <TableRow>
        {['Organization', 'Status', 'Portal', 'Hub ID', 'Last sync', 'Contacts synced', 'Failed', 'Calls today'].map(
          (title) => (
            <TableCell key={title}>{title}</TableCell>
          ),
        )}
      </TableRow>
    </TableHead>
    <TableBody>
      {rows.map((c) => {
        const { status } = c;
        const usedShare = status.rate_limit.daily_used / Math.max(1, status.rate_limit.daily_limit);
        return (
          <TableRow
            key={c.organization_id}
            data-testid={`crm-connection-${c.organization_id}`}
            style={c.organization_id === selected ? { background: '#f0f4ff' } : undefined}
          >
            <TableCell>
              <Button
                variant="text"
                size="sm"
                px={0}
                data-testid="crm-select"
                aria-pressed={c.organization_id === selected}
                onClick={() => onSelect(c.organization_id)}
              >
                {c.organization_name}
              </Button>
            </TableCell>
            <TableCell>
              <StateBadge state={c.connection_status} />
            </TableCell>
            <TableCell>{status.portal_name ?? '—'}</TableCell>
            <TableCell style={{ fontFamily: 'monospace' }}>{status.hub_id ?? '—'}</TableCell>
            <TableCell>{when(status.last_sync)}</TableCell>
            <TableCell>{count(status.sync_stats.contacts_synced)}</TableCell>
            <TableCell>
              {status.sync_stats.contacts_failed > 0 ? (
                <Text as="span" color="error" fontWeight="bold">
                  {count(status.sync_stats.contacts_failed)}
                </Text>
              ) : (
                0
              )}
            </TableCell>
            <TableCell title={`${(usedShare * 100).toFixed(1)}% of the daily limit`} style={{ whiteSpace: 'nowrap' }}>
              {count(status.rate_limit.daily_used)} / {count(status.rate_limit.daily_limit)}
            </TableCell>
          </TableRow>
        );
      })}
    </TableBody>
  </Table>
);

export default CrmConnectionsTable;
