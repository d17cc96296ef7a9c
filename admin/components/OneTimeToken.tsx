/// <reference lib="dom" />
// A directory's new SCIM token with the SCIM base URL, shown once (after Add directory and Rotate
// token): held only in the showing component's state, gone when the admin closes it or leaves. Imported
// by DirectorySync and DirectoryToken, not an AdminJS component of its own.
import React, { useState } from 'react';
import { Box, Button, H4, Link, MessageBox, Text } from '@adminjs/design-system';

/** The clipboard API needs a secure context (https or localhost); elsewhere the text is selected instead. */
async function copy(text: string, element: HTMLElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (element) window.getSelection()?.selectAllChildren(element);
    return false;
  }
}

const Copyable: React.FC<{ label: string; value: string; testId: string }> = ({ label, value, testId }) => {
  const [state, setState] = useState<'idle' | 'copied' | 'selected'>('idle');
  const [element, setElement] = useState<HTMLElement | null>(null);
  return (
    <Box mb="lg">
      <Text fontWeight="bold" mb="sm">
        {label}
      </Text>
      <Box flex flexDirection="row" alignItems="center">
        <code
          ref={setElement}
          data-testid={testId}
          style={{
            flex: 1,
            fontFamily: 'monospace',
            fontSize: 14,
            background: '#f6f7fb',
            border: '1px solid #dde1e8',
            borderRadius: 4,
            padding: '10px 12px',
            wordBreak: 'break-all',
            userSelect: 'all',
          }}
        >
          {value}
        </code>
        <Button
          type="button"
          ml="default"
          variant="outlined"
          data-testid={`copy-${testId}`}
          onClick={async () => setState((await copy(value, element)) ? 'copied' : 'selected')}
        >
          {state === 'copied' ? 'Copied' : 'Copy'}
        </Button>
      </Box>
      {state === 'selected' && (
        <Text mt="sm" style={{ color: '#454655' }}>
          Selected: press Ctrl+C (⌘C) to copy.
        </Text>
      )}
    </Box>
  );
};

export interface OneTimeTokenProps {
  title: string;
  token: string;
  scimUrl: string;
  /** Where the admin goes on: the directory's page. */
  directoryUrl?: string;
  onDone: () => void;
}

const OneTimeToken: React.FC<OneTimeTokenProps> = ({ title, token, scimUrl, directoryUrl, onDone }) => (
  <Box variant="white" p="xl" mb="xl" data-testid="one-time-token" style={{ borderTop: '4px solid #4268f6' }}>
    <H4>{title}</H4>
    <MessageBox
      mb="xl"
      variant="warning"
      data-testid="token-warning"
      message="Copy the token now: you will not see it again. Guildhall keeps only its hash."
    />
    <Text mb="lg">
      In the identity provider’s provisioning settings, enter the SCIM base URL and the token (Microsoft Entra ID:
      Tenant URL and Secret Token; Okta: SCIM connector base URL and API token, authentication mode HTTP Header).
    </Text>
    <Copyable label="SCIM base URL" value={scimUrl} testId="scim-url" />
    <Copyable label="Bearer token" value={token} testId="directory-token" />
    <Box flex flexDirection="row" alignItems="center">
      <Button type="button" variant="contained" onClick={onDone} data-testid="token-done">
        I have copied the token
      </Button>
      {directoryUrl && (
        <Link ml="xl" href={directoryUrl} data-testid="open-directory">
          Open the directory
        </Link>
      )}
    </Box>
  </Box>
);

export default OneTimeToken;
