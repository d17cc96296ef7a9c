// The mail module's public surface: what other modules may import (dependency-cruiser's
// module-public-entry rule). Everything else in the folder is the module's own.
export { mailModule } from './mail.module.ts';
export type { MailService } from './mail.service.ts';
