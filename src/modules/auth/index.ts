// The auth module's public surface: what other modules may import (dependency-cruiser's
// module-public-entry rule). Everything else in the folder is the module's own.
export { authModule } from './auth.module.ts';
export type { AuthService, Session } from './auth.service.ts';
export type { IssuedToken, TokenClaims, TokenService } from './token.service.ts';
