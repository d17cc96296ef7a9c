/// <reference lib="dom" />
// A directory's Rotate token and Revoke token: a page that asks, then POSTs (as ConfirmAction). Rotate
// answers with the new token, shown here once; it is in no record, URL or notice, so leaving the page
// or reloading it loses it for good. Revoke goes back to the directory's page with a notice.
import React, { useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiClient, ViewHelpers, useNotice, useTranslation, type ActionProps } from 'adminjs';
import { Box, Button, H3, Text } from '@adminjs/design-system';
import OneTimeToken from './OneTimeToken.tsx';

const api = new ApiClient();
const h = new ViewHelpers();

interface Answer {
  notice?: { message: string; type: 'success' | 'error' };
  redirectUrl?: string;
  token?: string;
  scimUrl?: string;
}

const DirectoryToken: React.FC<ActionProps> = ({ record, resource, action }) => {
  const addNotice = useNotice();
  const { translateAction } = useTranslation();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [issued, setIssued] = useState<{ token: string; scimUrl: string } | null>(null);
  if (!record) return null;
  const label = translateAction(action.label, resource.id);
  const showUrl = h.recordActionUrl({ resourceId: resource.id, recordId: record.id, actionName: 'show' });

  const confirm = async () => {
    setBusy(true);
    const res = await api.recordAction({
      resourceId: resource.id,
      recordId: record.id,
      actionName: action.name,
      method: 'post',
      data: { confirmed: 'true' },
    });
    const data = res.data as Answer;
    setBusy(false);
    if (data.notice) addNotice(data.notice);
    if (data.token && data.scimUrl) setIssued({ token: data.token, scimUrl: data.scimUrl });
    else if (data.redirectUrl) navigate(data.redirectUrl);
  };

  if (issued)
    return (
      <OneTimeToken
        title={`New SCIM token for ${record.title}`}
        token={issued.token}
        scimUrl={issued.scimUrl}
        onDone={() => {
          setIssued(null);
          navigate(showUrl);
        }}
      />
    );
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

export default DirectoryToken;
