// A recorded answer is shown again (history) and read again (the model's context for a follow-up) only
// while its asker may still open every resource it cites: after a downgrade, a revoked purchase or an
// unpublished resource, the answer and its excerpts would carry on what the chat no longer answers
// from. The question stays (the asker's own words); the answer says why it is no longer shown.
import type { LibraryReader } from '../library/index.ts';
import { Binds, type Sql } from '../../shared/sql.ts';
import type { TurnRecord } from './chat.repository.ts';

export const WITHHELD_ANSWER =
  'This answer drew on resources you can no longer open, so it is no longer shown. ' +
  'Ask again for an answer from what you can open now.';

/** The turns, each answer whose sources the reader can no longer all open withheld. */
export async function withholdUnopenable(sql: Sql, reader: LibraryReader, turns: TurnRecord[]): Promise<TurnRecord[]> {
  const cited = [...new Set(turns.flatMap((turn) => turn.sources.map((source) => source.resourceId)))];
  if (!cited.length) return turns;
  const binds = new Binds();
  const list = binds.add(cited);
  const rows = await sql.rows<{ id: string }>(
    `SELECT r.id FROM resources r WHERE r.id = ANY(${list}::uuid[]) AND ${reader.openSql(binds, 'r')}`,
    binds.values,
  );
  const openable = new Set(rows.map((row) => row.id));
  return turns.map((turn) =>
    turn.sources.every((source) => openable.has(source.resourceId))
      ? turn
      : { ...turn, answer: WITHHELD_ANSWER, sources: [], suggestedQuestions: [] },
  );
}
