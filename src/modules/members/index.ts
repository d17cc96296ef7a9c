// The members module's public surface: what other modules may import (dependency-cruiser's
// module-public-entry rule). Everything else in the folder is the module's own.
export { linkIsCurrent, linkedMemberSql } from './member-accounts.ts';
export type { LinkedMember, MemberAccounts, NewAccountLinkResult } from './member-accounts.ts';
export { membersModule } from './members.module.ts';
