/// <reference lib="dom" />
// The Impersonate action: choose a mode (read-only by default), start, then copy the token or open the portal.
import React, { useState } from 'react';
import { ApiClient, useNotice, type ActionProps } from 'adminjs';
import { Box, Button, FormGroup, H3, Input, Label, Link, Text } from '@adminjs/design-system';

interface Started {
  token: string;
  expiresAt: string;
  redirectUrl: string;
}

const api = new ApiClient();

const ImpersonateUser: React.FC<ActionProps> = ({ record, resource }) => {
  const [mode, setMode] = useState('read_only');
  const [reason, setReason] = useState('');
  const [started, setStarted] = useState<Started | null>(null);
  const addNotice = useNotice();
  if (!record) return null;

  const start = async () => {
    const res = await api.recordAction({
      resourceId: resource.id,
      recordId: record.id,
      actionName: 'impersonate',
      method: 'post',
      data: { mode, reason },
    });
    const data = res.data as { notice?: { message: string; type: 'success' | 'error' }; impersonation?: Started };
    if (data.notice) addNotice(data.notice);
    if (data.impersonation) {
      setStarted(data.impersonation);
      window.dispatchEvent(new Event('guildhall:impersonation'));
    }
  };

  return (
    <Box variant="white" p="xl">
      <H3>Impersonate {record.params.name}</H3>
      <Text mb="lg">
        The session lasts 15 minutes; every request made with it is logged with your identity and the user&apos;s.
      </Text>
      {!started && (
        <>
          <FormGroup>
            <Label htmlFor="mode">Mode</Label>
            <select id="mode" name="mode" value={mode} onChange={(e) => setMode(e.target.value)}>
              <option value="read_only">Read-only (default)</option>
              <option value="act_as_user">Act on behalf of the user (each action logged)</option>
            </select>
          </FormGroup>
          <FormGroup>
            <Label htmlFor="reason">Reason</Label>
            <Input
              id="reason"
              value={reason}
              onChange={(e: React.ChangeEvent<HTMLInputElement>) => setReason(e.target.value)}
              width="100%"
            />
          </FormGroup>
          <Button data-testid="start-impersonation" variant="contained" onClick={start}>
            Start impersonation
          </Button>
        </>
      )}
      {started && (
        <Box data-testid="impersonation-started">
          <Text mb="default">Active until {started.expiresAt.slice(0, 16).replace('T', ' ')} UTC.</Text>
          <Link href={`${started.redirectUrl}#access_token=${started.token}`} target="_blank" rel="noreferrer">
            Open the user&apos;s portal
          </Link>
          <FormGroup mt="lg">
            <Label>Token (for API calls as the user)</Label>
            <Input readOnly value={started.token} width="100%" />
          </FormGroup>
        </Box>
      )}
    </Box>
  );
};

export default ImpersonateUser;
