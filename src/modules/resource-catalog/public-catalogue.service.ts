// The public catalogue: an organization's library as anonymous visitors see it, by the organization's
// slug, without a credential. The visitor reads through the library's one policy as
// `anonymousActor` (published public, preview and paid resources are seen; only public ones open), so
// nothing here decides visibility. A suspended or unknown organization is a 404.
import { createHmac } from 'node:crypto';
import { anonymousActor } from '../../shared/access/actor.ts';
import { errors } from '../../shared/errors.ts';
import type { Sql } from '../../shared/sql.ts';
import { resolveReader, type LibraryReader } from '../library/index.ts';

export class PublicCatalogueService {
  constructor(private readonly deps: { sql: Sql; visitorSecret: string }) {}

  /**
   * The reader for a visitor of `slug`. The visitor is told apart (unique counts) by a keyed hash of
   * the organization and the address: never the address itself.
   */
  async reader(slug: string, address: string): Promise<LibraryReader> {
    const organization = await this.deps.sql.one<{ id: string }>(
      `SELECT id FROM organizations WHERE slug = $1 AND status = 'active'`,
      [slug],
    );
    if (!organization) throw errors.notFound('organization', slug);
    const visitorKey = createHmac('sha256', this.deps.visitorSecret)
      .update(`${organization.id}:${address}`)
      .digest('base64url')
      .slice(0, 32);
    return resolveReader(this.deps.sql, anonymousActor(organization.id, visitorKey));
  }
}
