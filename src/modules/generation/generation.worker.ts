// Generated content on the worker side: one job per request (generation.podcast, generation.infographic).
// Files are produced in a private work folder, stored under temporary keys, moved to their final keys
// (unique to the run, under the resource's prefix) and only then named by the record, in one
// transaction. Any failure removes every key the run wrote, so a failed generation leaves no partial
// file and the last good output stays as it was. A job whose run was superseded (a newer request)
// writes nothing. The whole run is short (under a minute for ten pages), so a retry starts it over
// rather than resuming half-made audio.
import { mkdtemp, rm } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { Sequelize } from 'sequelize';
import { resolveFfmpegPath } from '../../integrations/media/ffmpeg.ts';
import type { FileStorage } from '../../integrations/storage/file-storage.ts';
import type { VoiceEngine } from '../../integrations/speech/voice-engine.ts';
import type { JobContext } from '../../jobs/job.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Sql } from '../../shared/sql.ts';
import { digestDocument } from './document-digest.ts';
import { GeneratedContent, type GenerationKind, type StorageKeys } from './generated-content.model.ts';
import type { GenerationJob } from './generation.service.ts';
import { renderInfographic } from './infographic.render.ts';
import { renderPodcast } from './podcast.audio.ts';
import { composeScript, HOSTS, type ScriptLine } from './podcast-script.ts';
import { writeScriptWithClaude } from './podcast-script.claude.ts';
import { loadPassages, loadSourceSummary, type SourcePassage } from './source.repository.ts';

export interface GenerationWorkerDeps {
  sequelize: Sequelize;
  sql: Sql;
  clock: Clock;
  storage: FileStorage;
  logger: Logger;
  /** The speech engine, built on first use (only processes that make podcasts start it). */
  voices: () => VoiceEngine;
  ffmpegPath?: string;
  claude?: { client: Anthropic; model: string };
}

interface Output {
  /** Local files by role. */
  files: Partial<Record<keyof StorageKeys, string>>;
  fields: Partial<
    Pick<GeneratedContent, 'transcript' | 'durationSeconds' | 'voices' | 'altText' | 'summary' | 'scriptSource'>
  >;
}

interface Work {
  record: GeneratedContent;
  title: string;
  passages: SourcePassage[];
  workDir: string;
  progress: (percent: number) => Promise<void>;
  logger: Logger;
}

class Superseded extends Error {}

const EXTENSIONS: Record<keyof StorageKeys, string> = { audio: 'mp3', svg: 'svg', png: 'png' };
const CONTENT_TYPES: Record<keyof StorageKeys, string> = {
  audio: 'audio/mpeg',
  svg: 'image/svg+xml',
  png: 'image/png',
};

export class GenerationWorker {
  constructor(private readonly deps: GenerationWorkerDeps) {}

  podcast(job: GenerationJob, context: Pick<JobContext, 'logger'>): Promise<void> {
    return this.run(job, 'podcast', context.logger, (work) => this.makePodcast(work));
  }

  infographic(job: GenerationJob, context: Pick<JobContext, 'logger'>): Promise<void> {
    return this.run(job, 'infographic', context.logger, (work) => this.makeInfographic(work));
  }

  /** The script: Claude's when configured and well-formed, else composed from the document. */
  async script(
    title: string,
    passages: SourcePassage[],
    logger: Logger,
  ): Promise<{ lines: ScriptLine[]; source: 'claude' | 'composed' }> {
    if (this.deps.claude) {
      try {
        const lines = await writeScriptWithClaude(this.deps.claude.client, passages, {
          model: this.deps.claude.model,
          title,
        });
        if (lines) return { lines, source: 'claude' };
        logger.warn('Claude answered with something other than the script JSON; using the composed script');
      } catch (error) {
        logger.warn({ err: error }, 'Claude could not write the script; using the composed script');
      }
    }
    return { lines: composeScript(digestDocument(title, passages)), source: 'composed' };
  }

  private async makePodcast({ title, passages, workDir, progress, logger }: Work): Promise<Output> {
    const { lines, source } = await this.script(title, passages, logger);
    await progress(5);
    const engine = this.deps.voices();
    const audio = await renderPodcast(lines, {
      engine,
      ffmpegPath: resolveFfmpegPath(this.deps.ffmpegPath),
      workDir,
      onProgress: (done, total) => progress(5 + Math.floor((85 * done) / total)),
    });
    await progress(95);
    return {
      files: { audio: audio.mp3File },
      fields: {
        transcript: audio.transcript,
        durationSeconds: audio.durationSeconds,
        voices: Object.values(HOSTS).map((host) => ({ speaker: host.name, voice: host.voice, engine: engine.name })),
        scriptSource: source,
      },
    };
  }

  private async makeInfographic({ title, passages, workDir, progress }: Work): Promise<Output> {
    const made = await renderInfographic(title, passages, workDir);
    await progress(90);
    return {
      files: { svg: made.svgFile, png: made.pngFile },
      fields: { altText: made.altText, summary: made.summary as unknown as Record<string, unknown> },
    };
  }

  private async run(
    job: GenerationJob,
    kind: GenerationKind,
    baseLogger: Logger,
    produce: (work: Work) => Promise<Output>,
  ): Promise<void> {
    const logger = baseLogger.child({ generation: kind, contentId: job.contentId, runId: job.runId });
    const record = await GeneratedContent.findByPk(job.contentId);
    // a newer request took over, or this run already finished (a duplicate delivery)
    if (!record || record.runId !== job.runId || !['queued', 'running', 'failed'].includes(record.status)) return;
    const [claimed] = await GeneratedContent.update(
      { status: 'running', progress: 1, error: null, updatedAt: this.deps.clock.now() },
      { where: { id: record.id, runId: job.runId } },
    );
    if (!claimed) return;
    const written: string[] = [];
    const workDir = await mkdtemp(path.join(os.tmpdir(), `guildhall-${kind}-`));
    let reported = 1;
    const progress = async (percent: number) => {
      if (percent - reported < 5 && percent < 100) return;
      reported = percent;
      await GeneratedContent.update(
        { progress: Math.min(99, percent), updatedAt: this.deps.clock.now() },
        { where: { id: record.id, runId: job.runId, status: 'running' } },
      );
    };
    try {
      if (!record.requestedVersionId) throw new Error('The source version was deleted before generation started');
      const source = await loadSourceSummary(this.deps.sql, record.resourceId);
      const passages = await loadPassages(this.deps.sql, record.requestedVersionId);
      if (!source || !passages.length) throw new Error('The source has no extracted text any more');
      const output = await produce({ record, title: source.name, passages, workDir, progress, logger });
      const keys: StorageKeys = {};
      for (const [role, file] of Object.entries(output.files) as Array<[keyof StorageKeys, string]>) {
        const temporary = `tmp/generation-${job.runId}-${role}.${EXTENSIONS[role]}`;
        written.push(temporary);
        await this.deps.storage.put(temporary, createReadStream(file), { contentType: CONTENT_TYPES[role] });
        const final = `orgs/${record.organizationId}/resources/${record.resourceId}/generated/${kind}-${job.runId}.${EXTENSIONS[role]}`;
        written.push(final);
        await this.deps.storage.move(temporary, final);
        keys[role] = final;
      }
      const previous = await this.publish(record, job.runId, keys, output);
      written.length = 0;
      // the last output's files, once nothing names them any more
      for (const key of Object.values(previous))
        if (key && !Object.values(keys).includes(key)) await this.deps.storage.delete(key).catch(() => undefined);
      logger.info('generated');
    } catch (error) {
      for (const key of written)
        await this.deps.storage
          .delete(key)
          .catch((e: unknown) => logger.error({ err: e, key }, 'could not remove a file of a failed generation'));
      if (error instanceof Superseded) return logger.info('superseded by a newer request; nothing written');
      const message = String((error as Error)?.message ?? error).slice(0, 1000);
      await GeneratedContent.update(
        { status: 'failed', error: message, updatedAt: this.deps.clock.now() },
        { where: { id: record.id, runId: job.runId } },
      );
      throw error;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  /** Names the new files in the record, if this run is still the one asked for; returns the old keys. */
  private async publish(
    record: GeneratedContent,
    runId: string,
    keys: StorageKeys,
    output: Output,
  ): Promise<StorageKeys> {
    return this.deps.sequelize.transaction(async (transaction) => {
      const current = await GeneratedContent.findByPk(record.id, { transaction, lock: transaction.LOCK.UPDATE });
      if (!current || current.runId !== runId) throw new Superseded();
      const version = await this.deps.sql.one<{ id: string; version: number; current: boolean }>(
        `SELECT v.id, v.version, (v.version = r.current_version) AS current
           FROM resource_versions v JOIN resources r ON r.id = v.resource_id WHERE v.id = $1::uuid`,
        [record.requestedVersionId],
        transaction,
      );
      const previous = current.storageKeys;
      await current.update(
        {
          ...output.fields,
          // a version added while this ran makes the result stale at once
          status: version?.current ? 'ready' : 'stale',
          progress: 100,
          error: null,
          storageKeys: keys,
          sourceVersionId: record.requestedVersionId,
          sourceVersion: version?.version ?? null,
          generatedAt: this.deps.clock.now(),
        },
        { transaction },
      );
      return previous;
    });
  }
}
