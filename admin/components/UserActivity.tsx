/// <reference lib="dom" />
// The user's activity log (what they did and what was done to them), newest first.
import React, { useEffect, useState } from 'react';
import { ApiClient, type ActionProps } from 'adminjs';
import { Box, H3, Table, TableBody, TableCell, TableHead, TableRow, Text } from '@adminjs/design-system';
import { codeLabel } from './portal-labels.ts';
import { portalTime } from './portal-time.ts';

interface Entry {
  id: string;
  occurredAt: string;
  action: string;
  actorType: string;
  actorId: string | null;
  impersonatorId: string | null;
  /** Who acted and who impersonated, by name (looked up by the action's handler). */
  actorName: string | null;
  impersonatorName: string | null;
  requestId: string | null;
}

const api = new ApiClient();

const UserActivity: React.FC<ActionProps> = ({ record, resource }) => {
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [total, setTotal] = useState(0);
  useEffect(() => {
    if (!record) return;
    api
      .recordAction({ resourceId: resource.id, recordId: record.id, actionName: 'activity', method: 'get' })
      .then((res) => {
        const body = res.data as { entries?: Entry[]; pagination?: { totalItems: number } };
        setEntries(body.entries ?? []);
        setTotal(body.pagination?.totalItems ?? 0);
      });
  }, [record?.id]);
  if (!record) return null;
  const by = (e: Entry) => {
    const who =
      e.actorType === 'user' && e.actorId === record.id ? 'the user' : (e.actorName ?? e.actorType.replace('_', ' '));
    if (!e.impersonatorId) return who;
    return `${who} (impersonated by ${e.impersonatorName ?? 'an administrator'})`;
  };

  return (
    <Box variant="white" p="xl" data-testid="user-activity">
      <H3>Activity of {record.params.name}</H3>
      {entries === null && <Text>Loading…</Text>}
      {entries?.length === 0 && <Text>No activity recorded yet.</Text>}
      {entries && entries.length > 0 && (
        <>
          <Text mb="default">
            {total > entries.length
              ? `The latest ${entries.length} of ${total} entries.`
              : `${total} ${total === 1 ? 'entry' : 'entries'}.`}
          </Text>
          <Table>
            <TableHead>
              <TableRow>
                <TableCell>When</TableCell>
                <TableCell>What</TableCell>
                <TableCell>By</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {entries.map((e) => (
                <TableRow key={e.id}>
                  <TableCell>{portalTime(e.occurredAt)}</TableCell>
                  <TableCell title={e.action}>{codeLabel(e.action)}</TableCell>
                  <TableCell>{by(e)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </>
      )}
    </Box>
  );
};

export default UserActivity;
