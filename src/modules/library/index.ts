// The library module's public surface: what other modules may import (dependency-cruiser's
// module-public-entry rule). Everything else in the folder is the module's own.
export { accessLevelsLabelled } from './access-levels.ts';
export type { AccessLevel } from './access-levels.ts';
export { ResourceCategory } from './category.model.ts';
export { libraryModule } from './library.module.ts';
export type { ResourceFileService } from './resource-files.service.ts';
export { loadResourceViews } from './resource-view.repository.ts';
export { requireResourceAccess, resolveReader } from './resource.access.ts';
export type { LibraryReader } from './resource.access.ts';
export { toResourceDto } from './resource.mapper.ts';
export type { ResourceDto } from './resource.mapper.ts';
export { RESOURCE_STATUSES, RESOURCE_TYPES } from './resource.model.ts';
export type { ResourceEvents } from './resource.service.ts';
export { inspectStagedFile } from './upload/file-inspection.ts';
export type { StagedFile } from './upload/file-inspection.ts';
export { DEFAULT_LIMITS, multipartReader } from './upload/multipart.ts';
export { newTempKey } from './upload/storage-engine.ts';
export { recordUsage } from './usage.recorder.ts';
