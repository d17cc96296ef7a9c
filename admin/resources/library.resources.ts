// Each organization's library in the Admin Portal, read-only: resources, their versions, categories
// and the storage used per organization. The one write, deleting a resource, goes through the
// library's ResourceService (`container.services.resources.delete`), which removes the row and every
// file it owns and announces `resource.deleted`; the portal never deletes rows itself.
import type { ActionContext, ActionRequest, ActionResponse, ResourceOptions, ResourceWithOptions } from 'adminjs';
import type { AppContext as Container } from '../../src/app-context.ts';
import type { Actor } from '../../src/shared/access/actor.ts';
import { codeLabels, type PortalComponents } from '../components/index.ts';
import { portalActor } from '../portal-actor.ts';
import { noticeOf } from '../portal-errors.ts';
import { AllowListedResource } from './allow-listed.resource.ts';
import { LibraryStorageResource } from './library-storage.resource.ts';
import { PORTAL_PROPERTIES } from './portal-properties.ts';

const READ_ONLY: ResourceOptions['actions'] = {
  new: { isAccessible: false },
  edit: { isAccessible: false },
  delete: { isAccessible: false },
  bulkDelete: { isAccessible: false },
};

/** What the portal needs of the library's resource service (`container.services.resources`). */
interface ResourceDeletion {
  delete(actor: Actor, id: string): Promise<unknown>;
}

const deletionService = (container: Container): ResourceDeletion | undefined =>
  (container.services as unknown as { resources?: ResourceDeletion }).resources;

const navigation = { name: 'Library', icon: 'Book' };

/** Page titles and column names (AdminJS would title every list "List"). */
export const LIBRARY_TRANSLATIONS = {
  library_resources: {
    labels: { library_resources: 'Resources' },
    actions: { list: 'Library resources', show: 'Library resource', deleteResource: 'Delete resource' },
    properties: {
      accessLevel: 'Access level',
      downloadCount: 'Downloads',
      viewCount: 'Views',
      publishedAt: 'Published',
    },
  },
  library_versions: {
    labels: { library_versions: 'Versions' },
    actions: { list: 'Resource versions', show: 'Resource version' },
    properties: {
      resourceId: 'Resource',
      fileName: 'File name',
      contentType: 'Content type',
      sizeBytes: 'Size (bytes)',
    },
  },
  library_categories: {
    labels: { library_categories: 'Categories' },
    actions: { list: 'Categories', show: 'Category' },
    properties: { archivedAt: 'Archived' },
  },
  library_storage: {
    labels: { library_storage: 'Storage' },
    actions: { list: 'Storage per organization', show: 'Storage' },
    properties: { organizationName: 'Organization', storageUsed: 'Storage used', storageBytes: 'Bytes' },
  },
};
// AdminJS names the referenced organization through OrganizationsResource.findMany
const organizationLink = () => ({ type: 'reference' as const, reference: 'organizations' });

export function libraryResources(container: Container, components: PortalComponents): ResourceWithOptions[] {
  const { models } = container;
  const deleteResource = {
    actionType: 'record' as const,
    icon: 'Trash2',
    variant: 'danger' as const,
    guard: 'Delete this resource? Its versions, thumbnails and generated content are removed from storage.',
    component: components.ConfirmAction,
    // offered where the library's service is in the container (it always is in the full build)
    isAccessible: () => deletionService(container) !== undefined,
    handler: async (request: ActionRequest, _response: unknown, context: ActionContext): Promise<ActionResponse> => {
      const record = context.record!;
      if (request.method !== 'post') return { record: record.toJSON(context.currentAdmin) };
      const service = deletionService(container);
      try {
        if (!service) throw new Error('Resource deletion is not available in this build');
        // a platform admin acts inside the resource's organization, as with the Guildhall-Organization header
        await service.delete(
          await portalActor(context.currentAdmin, String(record.params.organizationId)),
          String(record.id()),
        );
        const redirectUrl = context.h.resourceActionUrl({ resourceId: 'library_resources', actionName: 'list' });
        return {
          record: record.toJSON(context.currentAdmin),
          redirectUrl,
          notice: { message: `Resource ${String(record.params.name)} deleted`, type: 'success' },
        };
      } catch (error) {
        return { record: record.toJSON(context.currentAdmin), notice: noticeOf(error) };
      }
    },
  };
  return [
    {
      resource: new AllowListedResource(models.Resource, PORTAL_PROPERTIES.library_resources),
      options: {
        id: 'library_resources',
        navigation,
        titleProperty: 'name',
        sort: { sortBy: 'createdAt', direction: 'desc' },
        listProperties: [
          'name',
          'organizationId',
          'type',
          'format',
          'accessLevel',
          'status',
          'viewCount',
          'downloadCount',
          'createdAt',
        ],
        showProperties: [
          'name',
          'organizationId',
          'type',
          'format',
          'accessLevel',
          'status',
          'publishedAt',
          'currentVersion',
          'viewCount',
          'downloadCount',
          'tags',
          'createdAt',
          'updatedAt',
        ],
        filterProperties: ['organizationId', 'name', 'type', 'accessLevel', 'status', 'createdAt'],
        properties: {
          organizationId: organizationLink(),
          tags: { components: { list: components.TextList, show: components.TextList } },
          type: codeLabels(components),
          format: codeLabels(components),
          accessLevel: codeLabels(components),
          status: codeLabels(components),
        },
        actions: { ...READ_ONLY, deleteResource },
      },
    },
    {
      resource: new AllowListedResource(models.ResourceVersion, PORTAL_PROPERTIES.library_versions),
      options: {
        id: 'library_versions',
        navigation,
        titleProperty: 'fileName',
        sort: { sortBy: 'createdAt', direction: 'desc' },
        listProperties: [
          'resourceId',
          'version',
          'fileName',
          'contentType',
          'sizeBytes',
          'organizationId',
          'createdAt',
        ],
        filterProperties: ['organizationId', 'resourceId', 'fileName', 'createdAt'],
        properties: {
          organizationId: organizationLink(),
          resourceId: { type: 'reference', reference: 'library_resources' },
        },
        actions: READ_ONLY,
      },
    },
    {
      resource: new AllowListedResource(models.ResourceCategory, PORTAL_PROPERTIES.library_categories),
      options: {
        id: 'library_categories',
        navigation,
        titleProperty: 'name',
        sort: { sortBy: 'position', direction: 'asc' },
        listProperties: ['name', 'organizationId', 'position', 'icon', 'archivedAt'],
        filterProperties: ['organizationId', 'name', 'archivedAt'],
        properties: { organizationId: organizationLink() },
        actions: READ_ONLY,
      },
    },
    {
      resource: new LibraryStorageResource(container),
      options: {
        id: 'library_storage',
        navigation,
        titleProperty: 'organizationName',
        listProperties: ['organizationName', 'resources', 'versions', 'storageUsed', 'storageBytes'],
        showProperties: ['organizationName', 'resources', 'versions', 'storageUsed', 'storageBytes'],
        filterProperties: [],
        actions: READ_ONLY,
      },
    },
  ];
}
