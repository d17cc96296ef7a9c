/// <reference lib="dom" />
// What the CRM page's parts share: the shapes crm.routes.ts answers with (its types, dates as ISO
// strings), and how a time, a connection state and a run's outcome are shown.
import React from 'react';
import type { CrmDetailData, CrmErrorPage } from '../resources/crm.routes.ts';
import { Badge } from '@adminjs/design-system';
import { portalTime } from './portal-time.ts';

export type { CrmDetailData, CrmErrorPage };
export type CrmConnection = NonNullable<CrmDetailData['connection']>;
export type ConnectionState = CrmConnection['connection_status'];

export const when = (date: string | null, none = 'never') => portalTime(date) || none;
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
