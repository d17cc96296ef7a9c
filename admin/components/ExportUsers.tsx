/// <reference lib="dom" />
// CSV export of the users list as currently filtered and sorted in the portal.
import React from 'react';
import { useSelector } from 'react-redux';
import { Box, H3, Link, Text } from '@adminjs/design-system';

const ExportUsers: React.FC = () => {
  const rootPath = useSelector((state: { paths: { rootPath: string } }) => state.paths.rootPath);
  const search = window.location.search;
  const filtered = new URLSearchParams(search).toString().includes('filters.');
  return (
    <Box variant="white" p="xl">
      <H3>Export users as CSV</H3>
      <Text mb="lg">
        {filtered
          ? 'The export holds every user matching the current filters, in the current order.'
          : 'No filter is set: the export holds every user.'}
      </Text>
      <Link data-testid="download-csv" href={`${rootPath}/export/users.csv${search}`} download>
        Download CSV
      </Link>
    </Box>
  );
};

export default ExportUsers;
