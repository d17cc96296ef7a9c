/// <reference lib="dom" />
// What the CRM page's parts share: the shapes the page handler and crm.routes.ts answer with (dates as
// ISO strings), and how a time, a connection state and a run's outcome are shown.
import React from 'react';
import { Badge } from '@adminjs/design-system';

export type ConnectionState = 'connected' | 'needs_reauthorization' | 'disconnected';

export interface CrmStatus {
  connected: boolean;
  hub_id: string | null;
  portal_name: string | null;
  token_expires_at: string | null;
  scopes: string[];
  last_sync: string | null;
  sync_stats: {
    contacts_synced: number;
    contacts_failed: number;
    companies_synced: number;
    engagements_synced: number;
  };
  rate_limit: { daily_limit: number; daily_used: number; secondly_limit: number };
}

export interface CrmConnection {
  organization_id: string;
  organization_name: string;
  connection_status: ConnectionState;
  last_error: string | null;
  status: CrmStatus;
}

export interface CrmError {
  id: string;
  type: string;
  crm_error: string;
  property: string | null;
  record_id: string | null;
  http_status: number | null;
  message: string;
  created_at: string;
}

export interface CrmErrorPage {
  rows: CrmError[];
  total: number;
  page: number;
  itemsPerPage: number;
}

export interface CrmMapping {
  service_field: string;
  crm_property: string;
  status: 'valid' | 'invalid';
  error?: string;
}

export interface CrmRun {
  id: string;
  status: string;
  contacts_sent: number;
  contacts_failed: number;
  calls: number;
  detail: string | null;
  started_at: string;
  finished_at: string | null;
}

export interface CrmDetailData {
  connection: CrmConnection | null;
  status: CrmStatus;
  errors: CrmErrorPage;
  mapping: CrmMapping[];
  mappingProblem: string | null;
  runs: CrmRun[];
}

export const when = (date: string | null, none = 'never') => (date ? new Date(date).toLocaleString() : none);
export const count = (n: number) => n.toLocaleString('en-US');

const STATES: Record<ConnectionState, { label: string; variant: 'success' | 'danger' | 'light' }> = {
  connected: { label: 'connected', variant: 'success' },
  needs_reauthorization: { label: 'needs re-authorization', variant: 'danger' },
  disconnected: { label: 'disconnected', variant: 'light' },
};

export const StateBadge: React.FC<{ state: ConnectionState }> = ({ state }) => (
  <Badge size="sm" variant={STATES[state].variant} data-testid="crm-state" style={{ whiteSpace: 'nowrap' }}>
    {STATES[state].label}
  </Badge>
);

const RUNS: Record<string, 'success' | 'danger' | 'info' | 'light'> = {
  completed: 'success',
  partial: 'info',
  stopped: 'light',
  failed: 'danger',
  running: 'info',
};

export const RunBadge: React.FC<{ status: string }> = ({ status }) => (
  <Badge size="sm" variant={RUNS[status] ?? 'light'} style={{ whiteSpace: 'nowrap' }}>
    {status}
  </Badge>
);
