// The api-keys module's public surface: what other modules may import (dependency-cruiser's
// module-public-entry rule). Everything else in the folder is the module's own.
export type { ApiKeyService } from './api-key.service.ts';
export { apiKeysModule } from './api-keys.module.ts';
