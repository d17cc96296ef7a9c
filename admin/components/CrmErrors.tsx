/// <reference lib="dom" />
// An organization's CRM sync errors on Platform Settings > CRM: type, HubSpot's error code, property,
// record, message and time, a page at a time, with a checkbox per error (and one for the page) and
// Retry, which re-queues the chosen errors' records (CrmDiagnosticsService.retry). Imported by CrmDetail.
import React from 'react';
import {
  Box,
  Button,
  CheckBox,
  Pagination,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Text,
} from '@adminjs/design-system';
import { type CrmErrorPage, when } from './CrmShared.tsx';

const TYPES: Record<string, string> = {
  contact_sync: 'Contact',
  company_sync: 'Company',
  property_mapping: 'Mapping',
  auth: 'Authorization',
};

interface Props {
  page: CrmErrorPage;
  chosen: Set<string>;
  onChoose: (ids: Set<string>) => void;
  onRetry: () => void;
  onPage: (page: number) => void;
  busy: boolean;
}

const CrmErrors: React.FC<Props> = ({ page, chosen, onChoose, onRetry, onPage, busy }) => {
  if (page.total === 0)
    return (
      <Text data-testid="crm-no-errors" style={{ color: '#454655' }}>
        No sync errors.
      </Text>
    );
  const ids = page.rows.map((e) => e.id);
  const allChosen = ids.length > 0 && ids.every((id) => chosen.has(id));
  const toggle = (id: string) => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    onChoose(next);
  };
  return (
    <Box>
      <Box flex flexDirection="row" alignItems="center" mb="default" style={{ gap: 16 }}>
        <Button
          variant="contained"
          size="sm"
          data-testid="crm-retry"
          disabled={busy || chosen.size === 0}
          onClick={onRetry}
          style={{ whiteSpace: 'nowrap', flexShrink: 0 }}
        >
          Retry{chosen.size ? ` ${chosen.size} selected` : ''}
        </Button>
        <Text fontSize="sm" style={{ color: '#454655' }}>
          Retry sends the chosen contact errors’ records to HubSpot again: an error whose cause is gone disappears after
          that run. Chosen mapping, company and authorization errors are cleared, and the next run reports them again if
          their cause remains.
        </Text>
      </Box>
      <Table data-testid="crm-errors">
        <TableHead>
          <TableRow>
            <TableCell style={{ width: 40 }}>
              <CheckBox
                id="crm-errors-all"
                aria-label="Select every error on this page"
                checked={allChosen}
                onChange={() => onChoose(allChosen ? new Set() : new Set(ids))}
              />
            </TableCell>
            {['Type', 'CRM error', 'Property', 'Record', 'Message', 'Time'].map((title) => (
              <TableCell key={title}>{title}</TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {page.rows.map((e) => (
            <TableRow key={e.id} data-testid={`crm-error-${e.id}`}>
              <TableCell>
                <CheckBox
                  id={`crm-error-check-${e.id}`}
                  aria-label={`Select error ${e.crm_error}`}
                  data-testid="crm-error-check"
                  checked={chosen.has(e.id)}
                  onChange={() => toggle(e.id)}
                />
              </TableCell>
              <TableCell>{TYPES[e.type] ?? e.type}</TableCell>
              <TableCell style={{ fontFamily: 'monospace' }}>{e.crm_error}</TableCell>
              <TableCell style={{ fontFamily: 'monospace' }}>{e.property ?? '—'}</TableCell>
              <TableCell style={{ fontFamily: 'monospace' }} title={e.record_id ?? undefined}>
                {e.record_id ? `${e.record_id.slice(0, 8)}…` : '—'}
              </TableCell>
              <TableCell title={e.message}>
                {e.message.length > 120 ? `${e.message.slice(0, 119)}…` : e.message}
              </TableCell>
              <TableCell style={{ whiteSpace: 'nowrap' }}>{when(e.created_at)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {page.total > page.itemsPerPage && (
        <Box mt="lg" flex flexDirection="row" justifyContent="center">
          <Pagination page={page.page} perPage={page.itemsPerPage} total={page.total} onChange={onPage} />
        </Box>
      )}
      <Text mt="default" fontSize="sm" style={{ color: '#454655' }} data-testid="crm-errors-total">
        {page.total} error{page.total === 1 ? '' : 's'}
      </Text>
    </Box>
  );
};

export default CrmErrors;
