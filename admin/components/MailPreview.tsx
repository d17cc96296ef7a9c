/// <reference lib="dom" />
// An outbox message's redacted text (generated passwords and password links removed) as a mail
// preview. Plain text only, escaped by React: stored HTML is never rendered.
import React from 'react';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { Box, ValueGroup } from '@adminjs/design-system';

const MailPreview: React.FC<BasePropertyProps> = ({ property, record }) => {
  const { translateProperty } = useTranslation();
  const text = String(record?.params[property.path] ?? '');
  return (
    <ValueGroup label={translateProperty(property.path, property.resourceId)}>
      <Box
        data-testid="mail-preview"
        p="lg"
        style={{ border: '1px solid #dde1ee', borderRadius: 4, background: '#fff', maxWidth: 720 }}
      >
        <div style={{ whiteSpace: 'pre-wrap', fontFamily: 'system-ui, sans-serif', lineHeight: 1.5 }}>
          {text || '—'}
        </div>
      </Box>
    </ValueGroup>
  );
};

export default MailPreview;
