// One FileStorage contract, run against local disk and against S3 (the real AWS SDK and a local
// S3-compatible server): put/get/range/stat/move/delete/list, and a failed put leaves nothing.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { buffer } from 'node:stream/consumers';
import express from 'express';
import { loadConfig } from '../../src/config.ts';
import { createFileStorage } from '../../src/integrations/storage/create-file-storage.ts';
import type { ByteRange, FileStorage } from '../../src/integrations/storage/file-storage.ts';
import { LocalFileStorage } from '../../src/integrations/storage/local-file-storage.ts';
import { S3FileStorage } from '../../src/integrations/storage/s3-file-storage.ts';
import { sendStoredFile, type StoredFile } from '../../src/http/send-stored-file.ts';
import { until } from './library-helpers.ts';
import { startS3StandIn, type S3StandIn } from './s3-stand-in.ts';

const keys = async (storage: FileStorage, prefix: string) => {
  const found: string[] = [];
  for await (const object of storage.list(prefix)) found.push(object.key);
  return found.sort();
};

function failingStream(bytesBeforeFailure: number): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(Buffer.alloc(bytesBeforeFailure, 7));
      } else this.destroy(new Error('client went away'));
    },
  });
}

function contract(name: string, open: () => Promise<FileStorage>) {
  describe(`FileStorage contract: ${name}`, () => {
    let storage: FileStorage;
    before(async () => {
      storage = await open();
    });

    it('when a stream is put, then get returns its bytes, stat its size, and a range only those bytes', async () => {
      const bytes = Buffer.from('0123456789abcdefghij');
      assert.deepEqual(
        await storage.put('orgs/o1/resources/r1/v1', Readable.from([bytes.subarray(0, 7), bytes.subarray(7)])),
        { sizeBytes: 20 },
      );
      assert.deepEqual(await buffer(await storage.get('orgs/o1/resources/r1/v1')), bytes);
      assert.equal(
        (await buffer(await storage.get('orgs/o1/resources/r1/v1', { start: 5, end: 9 }))).toString(),
        '56789',
      );
      const stat = await storage.stat('orgs/o1/resources/r1/v1');
      assert.equal(stat?.sizeBytes, 20);
      assert.ok(stat && stat.modifiedAt.getTime() > Date.now() - 60_000);
    });

    it('when the client has left before a stored file is sent, then sending settles and closes the file', async () => {
      await storage.put('orgs/o1/resources/r9/v1', Readable.from([Buffer.alloc(4096, 1)]));
      let opened: Readable | undefined;
      const recording = Object.assign(Object.create(storage) as FileStorage, {
        get: async (key: string, range?: ByteRange) => (opened = await storage.get(key, range)),
      });
      const file: StoredFile = {
        key: 'orgs/o1/resources/r9/v1',
        sizeBytes: 4096,
        contentType: 'application/pdf',
        etag: '"x"',
        lastModified: new Date(),
        fileName: 'a.pdf',
        disposition: 'attachment',
      };
      let sent: Promise<unknown> | undefined;
      const app = express().get('/file', (req, res) => {
        // the connection goes while the route still looks the file up
        res.once('close', () => (sent = sendStoredFile(req, res, recording, file)));
        req.socket.destroy();
      });
      const server = app.listen(0, '127.0.0.1');
      await once(server, 'listening');
      try {
        const { port } = server.address() as AddressInfo;
        await assert.rejects(fetch(`http://127.0.0.1:${port}/file`));
        await until(async () => sent !== undefined);
        const outcome = await Promise.race([
          sent,
          new Promise((resolve) => setTimeout(() => resolve('still pending'), 2_000)),
        ]);
        assert.notEqual(outcome, 'still pending');
        assert.equal(opened?.destroyed, true, 'the stored file is closed');
      } finally {
        server.close();
      }
    });

    it('when a key is absent, then stat is null, get is not_found and delete succeeds', async () => {
      assert.equal(await storage.stat('orgs/o1/none'), null);
      await assert.rejects(storage.get('orgs/o1/none'), (error: { code?: string }) => error.code === 'not_found');
      await storage.delete('orgs/o1/none');
    });

    it('when a temp key is moved, then the bytes are at the final key and gone from the temp key', async () => {
      await storage.put('tmp/upload-1', Readable.from([Buffer.from('promoted')]));
      await storage.move('tmp/upload-1', 'orgs/o1/resources/r2/v1');
      assert.equal(await storage.stat('tmp/upload-1'), null);
      assert.equal((await buffer(await storage.get('orgs/o1/resources/r2/v1'))).toString(), 'promoted');
    });

    it('when listing a prefix, then every object under it is listed and nothing else', async () => {
      await storage.put('orgs/o2/resources/r3/a', Readable.from([Buffer.from('a')]));
      await storage.put('orgs/o2/resources/r3/b/c', Readable.from([Buffer.from('c')]));
      await storage.put('orgs/o2/resources/r4/a', Readable.from([Buffer.from('x')]));
      assert.deepEqual(await keys(storage, 'orgs/o2/resources/r3/'), [
        'orgs/o2/resources/r3/a',
        'orgs/o2/resources/r3/b/c',
      ]);
      await storage.delete('orgs/o2/resources/r3/a');
      assert.deepEqual(await keys(storage, 'orgs/o2/resources/r3/'), ['orgs/o2/resources/r3/b/c']);
    });

    it('when a put fails midway, then it rejects and nothing is left under the key or its folder', async () => {
      // bigger than one S3 part, so the S3 backend has begun a multipart upload it must abort
      await assert.rejects(storage.put('orgs/o3/resources/r5/v1', failingStream(9 * 1024 * 1024)));
      assert.equal(await storage.stat('orgs/o3/resources/r5/v1'), null);
      assert.deepEqual(await keys(storage, 'orgs/o3/'), []);
    });

    it('when a key could escape the root, then it is refused', async () => {
      await assert.rejects(storage.put('../etc/passwd', Readable.from([Buffer.from('x')])));
      await assert.rejects(storage.get('orgs/../../x'));
    });
  });
}

let dir: string;
let s3: S3StandIn;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'storage-'));
  s3 = await startS3StandIn();
});
after(async () => {
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

contract('local disk', async () => new LocalFileStorage(dir));
contract('S3 (s3rver)', async () => new S3FileStorage(s3.settings));

describe('local disk folders', () => {
  const exists = (key: string) =>
    stat(path.join(dir, key)).then(
      () => true,
      () => false,
    );
  const put = (storage: FileStorage, key: string) => storage.put(key, Readable.from([Buffer.from(key)]));

  it('when the last file of a folder is deleted or moved away, then the folders it emptied go too, the root stays', async () => {
    const storage = new LocalFileStorage(dir);
    await put(storage, 'orgs/o7/resources/r1/thumbnails/t.webp');
    await put(storage, 'orgs/o7/resources/r1/v1');
    await put(storage, 'orgs/o7/resources/r2/v1');
    await storage.delete('orgs/o7/resources/r1/thumbnails/t.webp');
    assert.equal(await exists('orgs/o7/resources/r1/thumbnails'), false);
    assert.equal(await exists('orgs/o7/resources/r1/v1'), true);
    await storage.delete('orgs/o7/resources/r1/v1');
    assert.equal(await exists('orgs/o7/resources/r1'), false);
    assert.equal(await exists('orgs/o7/resources/r2/v1'), true);
    await put(storage, 'staging/o7/upload');
    await storage.move('staging/o7/upload', 'orgs/o7/resources/r2/v2');
    assert.equal(await exists('staging/o7'), false);
    assert.equal(await exists('staging'), true, 'top-level folders stay: every upload passes through them');
    await assert.rejects(storage.put('orgs/o8/resources/r1/v1', failingStream(1024)));
    assert.equal(await exists('orgs/o8'), false);
    await storage.delete('orgs/o7/resources/r2/v1');
    await storage.delete('orgs/o7/resources/r2/v2');
    assert.equal(await exists('orgs/o7'), false);
    assert.equal(await exists('orgs'), true);
  });

  it('when files are written into a folder while its last file is deleted, then every write lands', async () => {
    const storage = new LocalFileStorage(dir);
    await put(storage, 'orgs/o9/a/f0');
    for (let i = 1; i <= 60; i += 1) {
      // the delete may empty and remove the folders between the put making them and writing in them
      await Promise.all([put(storage, `orgs/o9/a/f${i}`), storage.delete(`orgs/o9/a/f${i - 1}`)]);
    }
    assert.deepEqual(await keys(storage, 'orgs/o9/'), ['orgs/o9/a/f60']);
    assert.equal((await buffer(await storage.get('orgs/o9/a/f60'))).toString(), 'orgs/o9/a/f60');
  });
});

describe('createFileStorage', () => {
  it('when S3_BUCKET is set, then S3 is used, else local disk', () => {
    assert.equal(
      createFileStorage(loadConfig({ NODE_ENV: 'test', APP_SECRET: 'x'.repeat(40), DATA_DIR: dir }).library).kind,
      'local',
    );
    assert.equal(
      createFileStorage(loadConfig({ NODE_ENV: 'test', APP_SECRET: 'x'.repeat(40), DATA_DIR: dir, ...s3.env }).library)
        .kind,
      's3',
    );
  });
});
