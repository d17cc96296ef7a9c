/// <reference lib="dom" />
// Platform Settings > CRM: the organizations with a HubSpot connection (CrmConnectionsTable), and the
// chosen one's status, errors with Retry, mapping and runs (CrmDetail), loaded from the portal's CRM
// routes (admin/resources/crm.routes.ts). The choice is kept in the URL (?organization=<id>). After a
// Retry the page looks at the errors again every 2 seconds, for up to 30, until the retried ones are
// gone (the sync job sends the records in the background).
import React, { useCallback, useEffect, useRef, useState } from 'react';
import { useSelector } from 'react-redux';
import { ApiClient, useNotice } from 'adminjs';
import { Box, H2, H4, Text } from '@adminjs/design-system';
import CrmConnectionsTable from './CrmConnectionsTable.tsx';
import CrmDetail from './CrmDetail.tsx';
import type { CrmConnection, CrmDetailData, CrmErrorPage } from './CrmShared.tsx';

const api = new ApiClient();
const PAGE = 'crm';
const WATCH_EVERY_MS = 2000;
const WATCH_TIMES = 15;

interface PageData {
  connections: CrmConnection[];
  total: number;
}

const chosenInUrl = () => new URLSearchParams(window.location.search).get('organization');

const CrmSync: React.FC = () => {
  // useNotice gives a new function on every render: read through a ref so that the loaders (and the
  // effects that depend on them) stay the same
  const notice = useNotice();
  const addNotice = useRef(notice);
  addNotice.current = notice;
  const rootPath = useSelector((state: { paths: { rootPath: string } }) => state.paths.rootPath);
  const [list, setList] = useState<PageData | null>(null);
  const [selected, setSelected] = useState<string | null>(chosenInUrl());
  const [detail, setDetail] = useState<CrmDetailData | null>(null);
  const errorsPage = useRef(1);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [watching, setWatching] = useState<string[]>([]);
  const watched = useRef(0);

  const loadList = useCallback(async () => {
    const res = await api.getPage({ pageName: PAGE });
    setList(res.data as PageData);
  }, []);

  /** A CRM route's answer; a refusal is a notice (and null). */
  const read = useCallback(
    async <T,>(path: string): Promise<T | null> => {
      const res = await fetch(`${rootPath}${path}`, { credentials: 'same-origin' });
      const body = await res.json().catch(() => ({}));
      if (res.ok) return body as T;
      addNotice.current({ message: body.message ?? `The CRM page could not load (${res.status})`, type: 'error' });
      return null;
    },
    [rootPath],
  );

  /** Everything about the organization (its mapping checked against HubSpot: one call from its budget). */
  const loadDetail = useCallback(
    async (organizationId: string) => {
      const body = await read<CrmDetailData>(`/crm/${organizationId}?page=${errorsPage.current}`);
      if (body) setDetail(body);
      return body;
    },
    [read],
  );

  /** Only its errors: paging, and looking again after a Retry. */
  const loadErrors = useCallback(
    async (organizationId: string, page: number) => {
      const errors = await read<CrmErrorPage>(`/crm/${organizationId}/errors?page=${page}`);
      if (!errors) return null;
      errorsPage.current = errors.page;
      setDetail((shown) => (shown ? { ...shown, errors } : shown));
      return errors;
    },
    [read],
  );

  useEffect(() => {
    loadList();
  }, [loadList]);

  useEffect(() => {
    if (!selected) return;
    setBusy(true);
    loadDetail(selected).finally(() => setBusy(false));
  }, [selected, loadDetail]);

  // after a Retry: look at the errors again until the retried ones are gone (or WATCH_TIMES looks), then
  // at everything once (the figures and runs have changed)
  useEffect(() => {
    if (!selected || watching.length === 0) return;
    const timer = setTimeout(async () => {
      watched.current += 1;
      const errors = await loadErrors(selected, errorsPage.current);
      const left = errors ? watching.filter((id) => errors.rows.some((e) => e.id === id)) : [];
      if (left.length > 0 && watched.current < WATCH_TIMES) return setWatching(left);
      setWatching([]);
      await Promise.all([loadDetail(selected), loadList()]);
    }, WATCH_EVERY_MS);
    return () => clearTimeout(timer);
  }, [selected, watching, loadErrors, loadDetail, loadList]);

  const select = (organizationId: string) => {
    const url = new URL(window.location.href);
    url.searchParams.set('organization', organizationId);
    window.history.replaceState(null, '', url);
    setChosen(new Set());
    setWatching([]);
    errorsPage.current = 1;
    setDetail(null);
    setSelected(organizationId);
  };

  const retry = async () => {
    if (!selected || chosen.size === 0) return;
    setBusy(true);
    const res = await fetch(`${rootPath}/crm/${selected}/retry`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ errorIds: [...chosen] }),
    });
    const body = await res.json().catch(() => ({}));
    setBusy(false);
    if (!res.ok) {
      addNotice.current({ message: body.message ?? `Retry failed (${res.status})`, type: 'error' });
      return;
    }
    const { queued, unknown } = body as { queued: string[]; unknown: string[] };
    addNotice.current({
      message: `${queued.length} error${queued.length === 1 ? '' : 's'} queued for retry${
        unknown.length ? `; ${unknown.length} no longer listed` : ''
      }`,
      type: 'success',
    });
    setChosen(new Set());
    watched.current = 0;
    setWatching(queued);
  };

  if (!list) return <Text>Loading…</Text>;
  return (
    <Box data-testid="crm-page" variant="transparent" p="lg" style={{ maxWidth: 1400 }}>
      <H2>CRM</H2>
      <Text mb="xl" style={{ maxWidth: 860 }}>
        Organizations connect HubSpot in the Client Portal; their members are then sent to HubSpot as contacts. Here are
        each connection’s status and figures. Choose an organization to see its sync errors (and retry them), its
        property mapping and its last runs.
      </Text>
      <Box variant="white" p="xl" mb="xl">
        <H4>Connections</H4>
        {list.connections.length ? (
          <CrmConnectionsTable rows={list.connections} selected={selected} onSelect={select} />
        ) : (
          <Text data-testid="crm-no-connections">No organization has connected HubSpot yet.</Text>
        )}
        {list.total > list.connections.length && (
          <Text mt="lg">
            The first {list.connections.length} of {list.total} connections, by organization name.
          </Text>
        )}
      </Box>
      {watching.length > 0 && (
        <Text mb="lg" data-testid="crm-watching">
          Waiting for the sync to send {watching.length} retried record{watching.length === 1 ? '' : 's'}…
        </Text>
      )}
      {selected && detail && (
        <CrmDetail
          data={detail}
          chosen={chosen}
          onChoose={setChosen}
          onRetry={retry}
          onErrorsPage={(page) => {
            setChosen(new Set());
            loadErrors(selected, page);
          }}
          onRefresh={() => {
            loadList();
            loadDetail(selected);
          }}
          busy={busy}
        />
      )}
      {selected && !detail && busy && <Text>Loading…</Text>}
    </Box>
  );
};

export default CrmSync;
