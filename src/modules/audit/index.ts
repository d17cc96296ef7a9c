// The audit module's public surface: what other modules may import (dependency-cruiser's
// module-public-entry rule). Everything else in the folder is the module's own.
export { auditModule } from './audit.module.ts';
export { AUDIT_COLUMNS, auditValues } from './audit.service.ts';
export type { AuditService } from './audit.service.ts';
