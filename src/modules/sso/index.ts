// The sso module's public surface: what other modules may import (dependency-cruiser's
// module-public-entry rule). Everything else in the folder is the module's own.
export { ssoModule } from './sso.module.ts';
