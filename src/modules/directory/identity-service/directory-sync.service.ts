// A pull sync of a brokered directory (POST /api/directories/{id}/sync queues it): the identity
// service's users and groups, listed through the SDK with the platform's API key, are written through
// the same writer as its webhook events. Groups first, then users, then each group's members exactly
// as listed; a user the identity service no longer lists is deactivated and a group it no longer
// lists is deleted (roles recomputed). What is already as listed is left untouched, so a second run
// changes nothing, and a run retried after a failure picks up where the data stands. A run abandoned
// by a dead worker is ended by the directory's next run.
import type { Clock } from '../../../shared/clock.ts';
import type { Sql } from '../../../shared/sql.ts';
import { Directory } from '../directory.model.ts';
import type { DirectoryGroupRow } from '../directory-provisioning.service.ts';
import type { IdpDirectoryWriter, StoredUser } from './idp-directory.writer.ts';
import { identityServiceClient } from './identity-service.client.ts';
import { userFromSdk } from './idp-resources.ts';

export interface DirectorySyncDeps {
  sql: Sql;
  clock: Clock;
  writer: IdpDirectoryWriter;
  apiUrl: URL;
  settings: () => Promise<{ apiKey: string; clientId: string } | null>;
}

/** A run that cannot succeed by retrying (nothing configured, no directory): failed, not thrown. */
class SyncRefused extends Error {}

export class DirectorySyncService {
  constructor(private readonly deps: DirectorySyncDeps) {}

  async run(runId: string): Promise<void> {
    const { sql, clock } = this.deps;
    const run = await sql.one<{ directoryId: string; status: string }>(
      'SELECT directory_id AS "directoryId", status FROM directory_sync_runs WHERE id = $1',
      [runId],
    );
    if (!run || run.status === 'done') return;
    await this.endAbandonedRuns(run.directoryId, runId);
    await sql.query(
      `UPDATE directory_sync_runs SET status = 'running', started_at = COALESCE(started_at, $2), error = NULL,
         finished_at = NULL WHERE id = $1`,
      [runId, clock.now()],
    );
    const directory = await Directory.findByPk(run.directoryId);
    try {
      if (!directory) throw new SyncRefused('The directory no longer exists');
      const counts = await this.pull(directory);
      // The directory first: the run's end is what callers wait for, so it must be written last.
      await directory.update({ lastSyncAt: clock.now() });
      await sql.query(
        `UPDATE directory_sync_runs SET status = 'done', users_synced = $2, groups_synced = $3, finished_at = $4
          WHERE id = $1`,
        [runId, counts.users, counts.groups, clock.now()],
      );
    } catch (error) {
      const message = `Sync failed: ${(error as Error).message || String(error)}`;
      await directory?.update({ lastError: message, lastErrorAt: clock.now() });
      await sql.query("UPDATE directory_sync_runs SET status = 'failed', error = $2, finished_at = $3 WHERE id = $1", [
        runId,
        message,
        clock.now(),
      ]);
      if (!(error instanceof SyncRefused)) throw error;
    }
  }

  /**
   * Only a run's own process ends its record, so a run whose worker died on its job's last attempt
   * (or whose job pg-boss failed otherwise) would stay `running` for good: the directory's next run
   * ends every other one that no live `directory.sync` job (queued, retrying or active) will take up.
   */
  private async endAbandonedRuns(directoryId: string, runId: string): Promise<void> {
    await this.deps.sql.query(
      `UPDATE directory_sync_runs r SET status = 'failed', finished_at = $3,
              error = 'Sync failed: the process running it stopped and its job has no attempts left'
        WHERE r.directory_id = $1 AND r.id <> $2 AND r.status IN ('queued', 'running')
          AND NOT EXISTS (SELECT 1 FROM pgboss.job j
                           WHERE j.name = 'directory.sync' AND j.data->>'runId' = r.id::text
                             AND j.state IN ('created', 'retry', 'active'))`,
      [directoryId, runId, this.deps.clock.now()],
    );
  }

  private async pull(directory: Directory): Promise<{ users: number; groups: number }> {
    if (directory.provider !== 'identity_service' || !directory.externalId)
      throw new SyncRefused('The directory is not brokered by the identity service');
    const settings = await this.deps.settings();
    if (!settings) throw new SyncRefused('The identity service is not configured (Admin Portal > Platform Settings)');
    const { directorySync } = identityServiceClient(this.deps.apiUrl, settings);
    const listed = { directory: directory.externalId };
    const groups = await (await directorySync.listGroups(listed)).autoPagination();
    const users = await (await directorySync.listUsers(listed)).autoPagination();
    const { writer } = this.deps;

    const groupRows = new Map<string, DirectoryGroupRow>();
    for (const group of groups)
      groupRows.set(group.id, await writer.upsertGroup(directory, { id: group.id, name: group.name, updatedAt: null }));
    const members = new Map<string, string[]>();
    const listedUsers = new Set<string>();
    for (const listedUser of users) {
      const user = userFromSdk(listedUser);
      const row = await writer.upsertUser(directory, { ...user, groups: undefined });
      listedUsers.add(row.id);
      for (const group of user.groups ?? []) {
        if (!groupRows.has(group.id)) groupRows.set(group.id, await writer.upsertGroup(directory, group));
        members.set(group.id, [...(members.get(group.id) ?? []), row.id]);
      }
    }
    for (const [externalId, row] of groupRows)
      await writer.setGroupMembers(directory, row, members.get(externalId) ?? []);

    const held = await this.deps.sql.rows<StoredUser & { id: string }>(
      `SELECT id, external_id AS "externalId", email, active, resource FROM directory_users WHERE directory_id = $1`,
      [directory.id],
    );
    for (const row of held) if (!listedUsers.has(row.id)) await writer.deactivateUser(directory, row);
    const heldGroups = await this.deps.sql.rows<{ id: string }>(
      'SELECT id FROM directory_groups WHERE directory_id = $1',
      [directory.id],
    );
    const keptGroups = new Set([...groupRows.values()].map((g) => g.id));
    for (const group of heldGroups) if (!keptGroups.has(group.id)) await writer.deleteGroupById(directory, group.id);
    return { users: users.length, groups: groupRows.size };
  }
}
