/// <reference lib="dom" />
// The users list: a quick search box above the grid, one-click "Export CSV (n rows)" of exactly what
// the grid shows, the Deleted users view, and an empty result that says so with a way out.
import React, { useEffect, useState } from 'react';
import { useSelector } from 'react-redux';
import { useLocation, useNavigate } from 'react-router';
import { List, type ActionProps } from 'adminjs';
import { Box, Button, H3, Input, Link, MessageBox, Text } from '@adminjs/design-system';

const UsersList: React.FC<ActionProps> = (props) => {
  const rootPath = useSelector((state: { paths: { rootPath: string } }) => state.paths.rootPath);
  const location = useLocation();
  const navigate = useNavigate();
  const params = new URLSearchParams(location.search);
  const [q, setQ] = useState(params.get('filters.q') ?? '');
  const [rows, setRows] = useState<number | null>(null);
  const filterKeys = [...params.keys()].filter((k) => k.startsWith('filters.') && k !== 'filters.deleted');
  const deleted = params.get('filters.deleted') === 'true';
  const exportParams = new URLSearchParams(
    [...params].filter(([k]) => k.startsWith('filters.') || k === 'sortBy' || k === 'direction'),
  );
  const exportQuery = exportParams.toString() ? `?${exportParams}` : '';

  useEffect(() => {
    setQ(params.get('filters.q') ?? '');
    fetch(`${rootPath}/export/users.count${exportQuery}`, { credentials: 'same-origin' })
      .then((res) => (res.ok ? (res.json() as Promise<{ rows: number }>) : null))
      .then((body) => setRows(body ? body.rows : null))
      .catch(() => setRows(null));
  }, [location.search]);

  const go = (next: URLSearchParams) => {
    next.delete('page');
    navigate({ pathname: location.pathname, search: next.toString() ? `?${next}` : '' });
  };
  const search = (event: React.FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams(location.search);
    if (q.trim()) next.set('filters.q', q.trim());
    else next.delete('filters.q');
    go(next);
  };
  const clearFilters = () => {
    const next = new URLSearchParams(location.search);
    for (const key of filterKeys) next.delete(key);
    go(next);
  };
  const toggleDeleted = () => {
    const next = new URLSearchParams(location.search);
    if (deleted) next.delete('filters.deleted');
    else next.set('filters.deleted', 'true');
    go(next);
  };

  return (
    <Box>
      {deleted && (
        <H3 data-testid="deleted-users-title" mb="default">
          Deleted users
        </H3>
      )}
      <Box flex alignItems="center" mb="lg" style={{ gap: 16, flexWrap: 'wrap' }}>
        <Box as="form" onSubmit={search} flex style={{ gap: 8 }} flexGrow={1}>
          <Input
            data-testid="quick-search"
            name="quick-search"
            placeholder="Search users by name or e-mail"
            value={q}
            onChange={(e: React.ChangeEvent<HTMLInputElement>) => setQ(e.target.value)}
            style={{ minWidth: 320 }}
          />
          <Button type="submit" size="sm">
            Search
          </Button>
        </Box>
        <Link data-testid="export-csv" href={`${rootPath}/export/users.csv${exportQuery}`} download>
          Export CSV{rows === null ? '' : ` (${rows} ${rows === 1 ? 'row' : 'rows'})`}
        </Link>
        <Link
          data-testid="deleted-users-link"
          href="#"
          onClick={(e: React.MouseEvent) => {
            e.preventDefault();
            toggleDeleted();
          }}
        >
          {deleted ? 'Back to users' : 'Deleted users'}
        </Link>
      </Box>
      {rows === 0 && (filterKeys.length > 0 || deleted) && (
        <MessageBox data-testid="no-users-match" mb="lg" variant="info">
          <Text>
            {deleted && filterKeys.length === 0 ? 'No deleted users.' : 'No users match these filters.'}{' '}
            {filterKeys.length > 0 && (
              <Link
                data-testid="clear-filters"
                href="#"
                onClick={(e: React.MouseEvent) => {
                  e.preventDefault();
                  clearFilters();
                }}
              >
                Clear filters
              </Link>
            )}
          </Text>
        </MessageBox>
      )}
      {/* an empty result is said once, above: AdminJS's own box repeated it and offered "Create first record" */}
      {!(rows === 0 && (filterKeys.length > 0 || deleted)) && <List {...props} />}
    </Box>
  );
};

export default UsersList;
