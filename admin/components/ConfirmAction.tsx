/// <reference lib="dom" />
// A record action with a side effect (suspend, reactivate, retry, cancel, revoke): a page that asks,
// then POSTs. AdminJS runs component-less actions with a GET, which a link from another site could
// trigger with the admin's cookie; these handlers act only on POST.
import React, { useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiClient, useNotice, useTranslation, type ActionProps } from 'adminjs';
import { Box, Button, H3, Text } from '@adminjs/design-system';

const api = new ApiClient();

const ConfirmAction: React.FC<ActionProps> = ({ record, resource, action }) => {
  const addNotice = useNotice();
  const { translateAction } = useTranslation();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  if (!record) return null;
  // action.label is the action's name; the resource's translations give "Test connection" for testConnection
  const label = translateAction(action.label, resource.id);
  const confirm = async () => {
    setBusy(true);
    const res = await api.recordAction({
      resourceId: resource.id,
      recordId: record.id,
      actionName: action.name,
      method: 'post',
      data: { confirmed: 'true' },
    });
    const data = res.data as { notice?: { message: string; type: 'success' | 'error' }; redirectUrl?: string };
    setBusy(false);
    if (data.notice) addNotice(data.notice);
    if (data.redirectUrl) navigate(data.redirectUrl);
  };
  return (
    <Box variant="white" p="xl">
      <H3>
        {label}: {record.title}
      </H3>
      <Text mb="lg">{action.guard || 'Are you sure?'}</Text>
      <Button
        data-testid="confirm-action"
        variant={action.variant === 'danger' ? 'danger' : 'contained'}
        disabled={busy}
        onClick={confirm}
      >
        {label}
      </Button>
    </Box>
  );
};

export default ConfirmAction;
