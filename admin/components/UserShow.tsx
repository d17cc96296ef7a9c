/// <reference lib="dom" />
// The user page names the user (and marks a soft-deleted one) above AdminJS's usual details.
import React from 'react';
import { Show, type ActionProps } from 'adminjs';
import { Badge, Box, H3 } from '@adminjs/design-system';

const UserShow: React.FC<ActionProps> = (props) => {
  const { record } = props;
  return (
    <Box>
      {record && (
        <H3 data-testid="user-title" mb="lg">
          {String(record.params.name ?? '')}
          {record.params.deletedAt ? (
            <Badge ml="default" variant="danger" data-testid="deleted-marker">
              Deleted
            </Badge>
          ) : null}
        </H3>
      )}
      <Show {...props} />
    </Box>
  );
};

export default UserShow;
