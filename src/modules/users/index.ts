// The users module's public surface: what other modules may import (dependency-cruiser's
// module-public-entry rule). Everything else in the folder is the module's own.
export { findUserRow } from './user-query.repository.ts';
export { ROLE_LABELS } from './user.labels.ts';
export { isEmailAddress } from './user-fields.ts';
export { toCurrentUser } from './user.mapper.ts';
export { User } from './user.model.ts';
export type { UserStatus } from './user.model.ts';
