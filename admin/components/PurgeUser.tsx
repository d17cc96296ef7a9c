/// <reference lib="dom" />
// Permanent delete of a soft-deleted user (the spec's soft-deleted -> removed): irreversible, so the
// admin types the user's e-mail address again to confirm.
import React, { useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiClient, useNotice, type ActionProps } from 'adminjs';
import { Box, Button, FormGroup, H3, Input, Label, MessageBox, Text } from '@adminjs/design-system';

const api = new ApiClient();

const PurgeUser: React.FC<ActionProps> = ({ record, resource }) => {
  const [confirmEmail, setConfirmEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const addNotice = useNotice();
  const navigate = useNavigate();
  if (!record) return null;
  const email = String(record.params.email ?? '');

  const purge = async () => {
    const res = await api.recordAction({
      resourceId: resource.id,
      recordId: record.id,
      actionName: 'purge',
      method: 'post',
      data: { confirmEmail },
    });
    const body = res.data as { notice?: { message: string; type: 'success' | 'error' }; redirectUrl?: string };
    if (body.notice) addNotice(body.notice);
    if (body.notice?.type === 'error') setError(body.notice.message);
    if (body.redirectUrl) navigate(body.redirectUrl);
  };

  return (
    <Box variant="white" p="xl">
      <H3>Delete {record.params.name} permanently?</H3>
      <Text mb="lg">
        This removes the user for good and cannot be undone. The audit trail keeps a record of the deletion.
      </Text>
      {error && <MessageBox data-testid="purge-error" mb="lg" variant="danger" message={error} />}
      <FormGroup>
        <Label htmlFor="confirmEmail">Type {email} to confirm</Label>
        <Input
          id="confirmEmail"
          name="confirmEmail"
          value={confirmEmail}
          autoComplete="off"
          onChange={(e: React.ChangeEvent<HTMLInputElement>) => setConfirmEmail(e.target.value)}
          width="100%"
        />
      </FormGroup>
      <Button
        data-testid="confirm-purge"
        variant="danger"
        disabled={confirmEmail.trim().toLowerCase() !== email.toLowerCase()}
        onClick={purge}
      >
        Delete permanently
      </Button>
    </Box>
  );
};

export default PurgeUser;
