// The crud module's public surface: what other modules may import (dependency-cruiser's
// module-public-entry rule). Everything else in the folder is the module's own.
export { defineResource } from './crud.definition.ts';
export type { FieldSpec } from './crud.definition.ts';
export { isCalendarDate, parseListQuery } from './crud.filters.ts';
export type { Condition } from './crud.filters.ts';
export { crudRoutes } from './crud.routes.ts';
export { CrudService } from './crud.service.ts';
