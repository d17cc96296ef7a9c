/// <reference lib="dom" />
// An id column shown as the name of what it references, linked to its page (audit entries,
// impersonation sessions). The name comes with the record (<x>Name for <x>Id); without one, the id.
import React from 'react';
import { useSelector } from 'react-redux';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { Link, Text, ValueGroup } from '@adminjs/design-system';
import { RESOURCE_OF_KIND } from './record-resources.ts';

const FIXED: Record<string, string> = {
  impersonatorId: 'users',
  adminId: 'users',
  targetUserId: 'users',
  organizationId: 'organizations',
  userId: 'users',
};

const RecordLink: React.FC<BasePropertyProps> = ({ property, record, where }) => {
  const { translateProperty } = useTranslation();
  const rootPath = useSelector((state: { paths: { rootPath: string } }) => state.paths.rootPath);
  const path = property.path;
  const id = record?.params[path] as string | undefined;
  const name = record?.params[path.replace(/Id$/, 'Name')] as string | undefined;
  const resource =
    path === 'targetId'
      ? RESOURCE_OF_KIND[String(record?.params.targetType)]
      : path === 'actorId'
        ? RESOURCE_OF_KIND[String(record?.params.actorType)]
        : FIXED[path];
  const content = !id ? (
    <Text>—</Text>
  ) : resource ? (
    <Link data-testid={`link-${path}`} href={`${rootPath}/resources/${resource}/records/${id}/show`}>
      {name ?? id}
    </Link>
  ) : (
    <Text>{name ?? id}</Text>
  );
  if (where !== 'show') return content;
  return <ValueGroup label={translateProperty(property.path, property.resourceId)}>{content}</ValueGroup>;
};

export default RecordLink;
