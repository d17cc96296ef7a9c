/// <reference lib="dom" />
// The Delete action: shows what is associated with the user, offers a transfer of ownership (a picker
// of the organization's other active users), then
// soft-deletes through the same service as DELETE /api/admin/users/{id}.
import React, { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiClient, useNotice, type ActionProps } from 'adminjs';
import { Box, Button, FormGroup, H3, Label, Text } from '@adminjs/design-system';

interface AssociatedData {
  type: string;
  description: string;
  count: number;
  transferable: boolean;
}

interface Heir {
  id: string;
  label: string;
}

const api = new ApiClient();

const DeleteUser: React.FC<ActionProps> = ({ record, resource }) => {
  const [data, setData] = useState<AssociatedData[]>([]);
  const [heirs, setHeirs] = useState<Heir[]>([]);
  const [transferTo, setTransferTo] = useState('');
  // a double click sent two deletes: the second answered "This user no longer exists" beside the success
  const [busy, setBusy] = useState(false);
  const addNotice = useNotice();
  const navigate = useNavigate();

  useEffect(() => {
    if (!record) return;
    api
      .recordAction({ resourceId: resource.id, recordId: record.id, actionName: 'delete', method: 'get' })
      .then((res) => {
        const body = res.data as { associatedData?: AssociatedData[]; heirs?: Heir[] };
        setData((body.associatedData ?? []).filter((d) => d.count > 0));
        setHeirs(body.heirs ?? []);
      });
  }, [record?.id]);
  if (!record) return null;

  const confirm = async () => {
    setBusy(true);
    const res = await api.recordAction({
      resourceId: resource.id,
      recordId: record.id,
      actionName: 'delete',
      method: 'post',
      data: { transferTo },
    });
    const body = res.data as { notice?: { message: string; type: 'success' | 'error' }; redirectUrl?: string };
    setBusy(false);
    if (body.notice) addNotice(body.notice);
    if (body.redirectUrl) navigate(body.redirectUrl);
  };

  return (
    <Box variant="white" p="xl">
      <H3>Delete {record.params.name}?</H3>
      <Text mb="lg">
        The user can no longer log in and leaves the users list; the audit trail is kept. A soft-deleted user can be
        removed permanently later.
      </Text>
      {data.length > 0 && (
        <Box mb="lg" data-testid="associated-data">
          <Text fontWeight="bold">Associated data</Text>
          <ul>
            {data.map((d) => (
              <li key={d.type}>
                {d.count} × {d.description}
              </li>
            ))}
          </ul>
        </Box>
      )}
      {data.some((d) => d.transferable) && (
        <FormGroup>
          <Label htmlFor="transferTo">Transfer ownership first to (optional)</Label>
          <select
            id="transferTo"
            name="transferTo"
            value={transferTo}
            onChange={(e) => setTransferTo(e.target.value)}
            style={{ width: '100%', padding: 8 }}
          >
            <option value="">Nobody: keep the data with the deleted user</option>
            {heirs.map((h) => (
              <option key={h.id} value={h.id}>
                {h.label}
              </option>
            ))}
          </select>
          <Text mt="sm" variant="sm">
            Active users of the same organization.
          </Text>
        </FormGroup>
      )}
      <Button data-testid="confirm-delete" variant="danger" disabled={busy} onClick={confirm}>
        Delete user
      </Button>
    </Box>
  );
};

export default DeleteUser;
