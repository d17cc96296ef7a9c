/// <reference lib="dom" />
// The default top bar, with a banner above it while the admin has an open impersonation session. It
// links to no portal: the session's token is shown once, on the page that started it, and a link
// without it opened the portal signed out.
import React, { useCallback, useEffect, useState } from 'react';
import { useSelector } from 'react-redux';
import { Box, Button, Text } from '@adminjs/design-system';

interface Current {
  active: boolean;
  targetName?: string;
  targetEmail?: string;
  mode?: 'read_only' | 'act_as_user';
  expiresAt?: string;
}

type Props = { OriginalComponent?: React.ComponentType<Record<string, unknown>> } & Record<string, unknown>;

const TopBar: React.FC<Props> = (props) => {
  const { OriginalComponent, ...rest } = props;
  const rootPath = useSelector((state: { paths: { rootPath: string } }) => state.paths.rootPath);
  const [current, setCurrent] = useState<Current>({ active: false });

  const refresh = useCallback(() => {
    fetch(`${rootPath}/impersonation/current`, { credentials: 'same-origin' })
      .then((res) => (res.ok ? (res.json() as Promise<Current>) : { active: false }))
      .then(setCurrent)
      .catch(() => setCurrent({ active: false }));
  }, [rootPath]);

  useEffect(() => {
    refresh();
    const timer = setInterval(refresh, 15_000);
    window.addEventListener('guildhall:impersonation', refresh);
    return () => {
      clearInterval(timer);
      window.removeEventListener('guildhall:impersonation', refresh);
    };
  }, [refresh]);

  const exit = async () => {
    const res = await fetch(`${rootPath}/impersonation/exit`, { method: 'POST', credentials: 'same-origin' });
    const body = (await res.json().catch(() => ({}))) as { returnUrl?: string };
    window.location.href = body.returnUrl ?? `${rootPath}/resources/users`;
  };

  return (
    <Box flex flexDirection="column">
      {current.active && (
        <Box
          data-testid="impersonation-banner"
          flex
          alignItems="center"
          px="lg"
          py="default"
          bg="errorLight"
          style={{ gap: 16, borderBottom: '2px solid #c20012' }}
        >
          <Text fontWeight="bold">
            Impersonating {current.targetName} ({current.targetEmail}) ·{' '}
            {current.mode === 'read_only' ? 'read-only' : 'acting as the user'} · ends{' '}
            {/* in UTC, as the notice that started it says */}
            {current.expiresAt ? `${new Date(current.expiresAt).toISOString().slice(11, 16)} UTC` : ''}
          </Text>
          <Button data-testid="exit-impersonation" size="sm" variant="danger" onClick={exit}>
            Exit impersonation
          </Button>
        </Box>
      )}
      {OriginalComponent ? <OriginalComponent {...rest} /> : null}
    </Box>
  );
};

export default TopBar;
