// Local disk storage under one root (DATA_DIR/files). Writes go to a unique `.part` file renamed into
// place when complete, so a reader never sees half a file and a failed write leaves nothing at the key.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type Dirent } from 'node:fs';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { errors } from '../../shared/errors.ts';
import { assertSafeKey, type ByteRange, type FileStorage, type StoredObject } from './file-storage.ts';

/**
 * Bytes a file write may buffer before it holds back its source. At the default (16 KiB) every 1 MiB
 * chunk of an upload waited for its disk write before the next was parsed and hashed; with room for a
 * few chunks, reading the socket, hashing and writing overlap.
 */
const WRITE_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Bytes per read of a stored file (at most this much is buffered per open download). Each chunk
 * costs a read, a socket write and a turn of the stream machinery: at the default 64 KiB a 1 MiB
 * range took 16 of them; with 512 KiB chunks its throughput went from 0.67 to 0.71 of a raw
 * fs.createReadStream server (bench/library.bench.ts, docs/performance.md).
 * A short range allocates only what it asks for.
 */
const READ_CHUNK_BYTES = 512 * 1024;

export class LocalFileStorage implements FileStorage {
  readonly kind = 'local' as const;

  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    assertSafeKey(key);
    return path.join(this.root, key);
  }

  async put(key: string, body: Readable): Promise<{ sizeBytes: number }> {
    const target = this.pathOf(key);
    const part = `${target}.${randomUUID()}.part`;
    await this.inFolder(part, () => fs.writeFile(part, '', { flag: 'wx' }));
    try {
      await pipeline(body, createWriteStream(part, { flags: 'r+', highWaterMark: WRITE_BUFFER_BYTES }));
      const { size } = await fs.stat(part);
      await fs.rename(part, target);
      return { sizeBytes: size };
    } catch (error) {
      await fs.rm(part, { force: true });
      await this.pruneEmptyFolders(path.dirname(part));
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    // opened by path, not from a FileHandle: a stream over a FileHandle reads through promises and
    // allocated enough per chunk to spend a tenth of a range request's CPU in garbage collection
    const stream = createReadStream(this.pathOf(key), {
      highWaterMark: READ_CHUNK_BYTES,
      ...(range ? { start: range.start, end: range.end } : {}),
    });
    try {
      await once(stream, 'open');
    } catch (error) {
      throw (error as NodeJS.ErrnoException).code === 'ENOENT' ? errors.notFound('file', key) : error;
    }
    return stream;
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const stats = await fs.stat(this.pathOf(key));
      return stats.isFile() ? { key, sizeBytes: stats.size, modifiedAt: stats.mtime } : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async move(from: string, to: string): Promise<void> {
    const source = this.pathOf(from);
    const target = this.pathOf(to);
    await this.inFolder(target, () => fs.rename(source, target));
    await this.pruneEmptyFolders(path.dirname(source));
  }

  async delete(key: string): Promise<void> {
    const target = this.pathOf(key);
    await fs.rm(target, { force: true });
    await this.pruneEmptyFolders(path.dirname(target));
  }

  /**
   * Folders exist only for their files, as an object store's prefixes do: a delete removes the folders
   * it left empty, up to the top-level ones (`tmp/`, `orgs/`, which every upload passes through), so a
   * deleted resource leaves no `thumbnails/` or `generated/` behind. A folder that is not empty
   * (ENOTEMPTY), or already gone, ends the walk.
   */
  private async pruneEmptyFolders(from: string): Promise<void> {
    const root = path.join(this.root, '.'); // as pathOf joins it: normalised, no trailing separator
    for (let dir = from; path.dirname(dir).length > root.length && dir.startsWith(root); dir = path.dirname(dir)) {
      try {
        await fs.rmdir(dir);
      } catch {
        return;
      }
    }
  }

  /**
   * Makes `file`'s folders, then runs `create`, which makes `file` in them; again when a concurrent
   * delete pruned a folder in between (ENOENT from either: a recursive mkdir that finds a folder checks
   * it, and the folder may be gone by then), a bounded number of times.
   */
  private async inFolder(file: string, create: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await fs.mkdir(path.dirname(file), { recursive: true });
        return await create();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 5) throw error;
      }
    }
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    const start = path.join(this.root, prefix);
    const walk = async function* (dir: string, root: string, prefix: string): AsyncGenerator<StoredObject> {
      let entries: Dirent[];
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) yield* walk(full, root, prefix);
        else if (entry.isFile()) {
          const key = path.relative(root, full).split(path.sep).join('/');
          if (!key.startsWith(prefix)) continue;
          const stats = await fs.stat(full);
          yield { key, sizeBytes: stats.size, modifiedAt: stats.mtime };
        }
      }
    };
    // a prefix may end inside a name (`tmp/`) or name a folder; walk the folder it names
    yield* walk(prefix.endsWith('/') ? start : path.dirname(start), this.root, prefix);
  }
}
