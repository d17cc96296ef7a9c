/// <reference lib="dom" />
// One organization on Platform Settings > CRM: its status (the spec's figures, from stored state), its
// sync errors with Retry (CrmErrors), its property mapping checked against HubSpot, and its last runs.
// Imported by CrmSync, which loads the data and acts.
import React from 'react';
import {
  Badge,
  Box,
  Button,
  H4,
  MessageBox,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Text,
} from '@adminjs/design-system';
import CrmErrors from './CrmErrors.tsx';
import { type CrmDetailData, RunBadge, StateBadge, count, when } from './CrmShared.tsx';

interface Props {
  data: CrmDetailData;
  chosen: Set<string>;
  onChoose: (ids: Set<string>) => void;
  onRetry: () => void;
  onErrorsPage: (page: number) => void;
  onRefresh: () => void;
  busy: boolean;
}

const Figure: React.FC<{ label: string; value: React.ReactNode; testId?: string }> = ({ label, value, testId }) => (
  <Box mr="xxl" mb="lg" style={{ minWidth: 140 }}>
    <Text fontSize="sm" style={{ color: '#454655' }}>
      {label}
    </Text>
    <Text fontWeight="bold" data-testid={testId}>
      {value}
    </Text>
  </Box>
);

const MAPPING_BADGE = { valid: 'success', invalid: 'danger', not_checked: 'secondary' } as const;

const CrmDetail: React.FC<Props> = ({ data, chosen, onChoose, onRetry, onErrorsPage, onRefresh, busy }) => {
  const { organizationName, connection, status, errors, mapping, mappingProblem, runs } = data;
  const name = connection?.organization_name ?? organizationName;
  return (
    <Box data-testid="crm-detail">
      <Box variant="white" p="xl" mb="xl">
        <Box flex flexDirection="row" alignItems="center" justifyContent="space-between" mb="lg">
          <H4 mb="0" data-testid="crm-detail-name">
            {name}
            {connection && (
              <Box as="span" ml="default">
                <StateBadge state={connection.connection_status} />
              </Box>
            )}
          </H4>
          <Button variant="outlined" size="sm" onClick={onRefresh} disabled={busy} data-testid="crm-refresh">
            Refresh
          </Button>
        </Box>
        {connection?.connection_status === 'needs_reauthorization' && (
          <MessageBox
            variant="danger"
            mb="lg"
            message={
              'HubSpot refused this portal’s token: the sync is stopped (its queue is kept) until one of the ' +
              'organization’s admins reconnects HubSpot in the Client Portal.'
            }
          />
        )}
        {connection?.last_error && (
          <Text mb="lg" data-testid="crm-last-error">
            Last error: {connection.last_error}
          </Text>
        )}
        <Box flex flexDirection="row" flexWrap="wrap">
          <Figure label="Portal" value={status.portal_name ?? '—'} />
          <Figure label="Hub ID" value={status.hub_id ?? '—'} />
          <Figure label="Scopes" value={status.scopes.length ? status.scopes.join(', ') : '—'} />
          <Figure label="Token expires" value={when(status.token_expires_at, '—')} />
          <Figure label="Last sync" value={when(status.last_sync)} testId="crm-last-sync" />
          <Figure label="Contacts synced" value={count(status.sync_stats.contacts_synced)} testId="crm-synced" />
          <Figure label="Contacts failed" value={count(status.sync_stats.contacts_failed)} testId="crm-failed" />
          <Figure
            label="Calls today / daily limit"
            value={`${count(status.rate_limit.daily_used)} / ${count(status.rate_limit.daily_limit)}`}
            testId="crm-daily"
          />
          <Figure label="Calls per second" value={count(status.rate_limit.secondly_limit)} />
        </Box>
      </Box>

      <Box variant="white" p="xl" mb="xl">
        <H4>Sync errors</H4>
        <CrmErrors
          page={errors}
          chosen={chosen}
          onChoose={onChoose}
          onRetry={onRetry}
          onPage={onErrorsPage}
          busy={busy}
        />
      </Box>

      <Box variant="white" p="xl" mb="xl">
        <H4>Property mapping</H4>
        {mappingProblem && <MessageBox variant="warning" mb="lg" message={`Not checked: ${mappingProblem}`} />}
        {mapping.length > 0 && (
          <Table data-testid="crm-mapping">
            <TableHead>
              <TableRow>
                {['Guildhall field', 'HubSpot property', 'Valid', 'Error'].map((title) => (
                  <TableCell key={title}>{title}</TableCell>
                ))}
              </TableRow>
            </TableHead>
            <TableBody>
              {mapping.map((m) => (
                <TableRow key={`${m.service_field}-${m.crm_property}`} data-testid={`crm-mapping-${m.crm_property}`}>
                  <TableCell>{m.service_field}</TableCell>
                  <TableCell style={{ fontFamily: 'monospace' }}>{m.crm_property}</TableCell>
                  <TableCell>
                    <Badge size="sm" variant={MAPPING_BADGE[m.status]}>
                      {m.status.replace('_', ' ')}
                    </Badge>
                  </TableCell>
                  <TableCell>{m.error ?? '—'}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </Box>

      <Box variant="white" p="xl" mb="xl">
        <H4>Last runs</H4>
        {runs.length === 0 ? (
          <Text data-testid="crm-no-runs" style={{ color: '#454655' }}>
            No runs yet.
          </Text>
        ) : (
          <Table data-testid="crm-runs">
            <TableHead>
              <TableRow>
                {['Status', 'Sent', 'Failed', 'Calls', 'Detail', 'Started', 'Finished'].map((title) => (
                  <TableCell key={title}>{title}</TableCell>
                ))}
              </TableRow>
            </TableHead>
            <TableBody>
              {runs.map((r) => (
                <TableRow key={r.id} data-testid="crm-run">
                  <TableCell>
                    <RunBadge status={r.status} />
                  </TableCell>
                  <TableCell>{count(r.contacts_sent)}</TableCell>
                  <TableCell>{count(r.contacts_failed)}</TableCell>
                  <TableCell>{count(r.calls)}</TableCell>
                  <TableCell>{r.detail ?? '—'}</TableCell>
                  <TableCell style={{ whiteSpace: 'nowrap' }}>{when(r.started_at)}</TableCell>
                  <TableCell style={{ whiteSpace: 'nowrap' }}>{when(r.finished_at, '—')}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </Box>
    </Box>
  );
};

export default CrmDetail;
