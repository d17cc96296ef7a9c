/// <reference lib="dom" />
// AdminJS's breadcrumbs, with the action's name looked up among its resource's translations. The original
// translates only the global `actions.<name>`, so a resource's own action ("New SSO connection", "Export
// CSV", "Edit user") showed as its code name in title case ("New Connection", "Export Csv", "Edit").
import React from 'react';
import { Box, cssClass } from '@adminjs/design-system';
import {
  BreadcrumbLink,
  BreadcrumbText,
  useTranslation,
  ViewHelpers,
  type ResourceJSON,
  type RecordJSON,
} from 'adminjs';

interface Props {
  resource: ResourceJSON;
  record?: RecordJSON | null;
  actionName: string;
}

const Breadcrumbs: React.FC<Props> = ({ resource, record, actionName }) => {
  const { tl, ta } = useTranslation();
  const listed = resource.resourceActions.some(({ name }) => name === 'list');
  const action = resource.actions.find(({ name }) => name === actionName);
  const resourceName = tl(resource.name, resource.id);
  return (
    <Box flexGrow={1} className={cssClass('Breadcrumbs')}>
      <BreadcrumbLink to={new ViewHelpers().dashboardUrl()}>{tl('dashboard')}</BreadcrumbLink>
      {listed ? (
        <BreadcrumbLink to={resource.href ?? '/'} className={record ? 'is-active' : ''}>
          {resourceName}
        </BreadcrumbLink>
      ) : (
        <BreadcrumbText>{resourceName}</BreadcrumbText>
      )}
      {action && action.name !== 'list' && <BreadcrumbLink to="#">{ta(action.name, resource.id)}</BreadcrumbLink>}
    </Box>
  );
};

export default Breadcrumbs;
