/// <reference lib="dom" />
// The Delete action: shows what is associated with the user, offers a transfer of ownership, then
// soft-deletes through the same service as DELETE /api/admin/users/{id}.
import React, { useEffect, useState } from 'react';
import { ApiClient, useNotice, type ActionProps } from 'adminjs';
import { Box, Button, FormGroup, H3, Input, Label, Text } from '@adminjs/design-system';

interface AssociatedData {
  type: string;
  description: string;
  count: number;
  transferable: boolean;
}

const api = new ApiClient();

const DeleteUser: React.FC<ActionProps> = ({ record, resource }) => {
  const [data, setData] = useState<AssociatedData[]>([]);
  const [transferTo, setTransferTo] = useState('');
  const addNotice = useNotice();

  useEffect(() => {
    if (!record) return;
    api.recordAction({ resourceId: resource.id, recordId: record.id, actionName: 'delete', method: 'get' })
      .then((res) => setData(((res.data as { associatedData?: AssociatedData[] }).associatedData ?? []).filter((d) => d.count > 0)));
  }, [record?.id]);
  if (!record) return null;

  const confirm = async () => {
    const res = await api.recordAction({ resourceId: resource.id, recordId: record.id, actionName: 'delete', method: 'post', data: { transferTo } });
    const body = res.data as { notice?: { message: string; type: 'success' | 'error' }; redirectUrl?: string };
    if (body.notice) addNotice(body.notice);
    if (body.redirectUrl) window.location.href = body.redirectUrl;
  };

  return (
    <Box variant="white" p="xl">
      <H3>Delete {record.params.name}?</H3>
      <Text mb="lg">The user can no longer log in and leaves the users list; the audit trail is kept. A soft-deleted user can be removed permanently later.</Text>
      {data.length > 0 && (
        <Box mb="lg" data-testid="associated-data">
          <Text fontWeight="bold">Associated data</Text>
          <ul>{data.map((d) => <li key={d.type}>{d.count} × {d.description}</li>)}</ul>
        </Box>
      )}
      {data.some((d) => d.transferable) && (
        <FormGroup>
          <Label htmlFor="transferTo">Transfer ownership first to user id (same organization, optional)</Label>
          <Input id="transferTo" value={transferTo} onChange={(e: React.ChangeEvent<HTMLInputElement>) => setTransferTo(e.target.value)} width="100%" />
        </FormGroup>
      )}
      <Button data-testid="confirm-delete" variant="danger" onClick={confirm}>Delete user</Button>
    </Box>
  );
};

export default DeleteUser;
