// Resumable uploads (tus 1.0) at /api/uploads against the real app and database: the tus-js-client
// library end to end, raw protocol requests for an interrupted PATCH and its resumption, the size
// limit, tenancy, expiry, and the hand-over to the resource service (take).
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buffer } from 'node:stream/consumers';
import * as tus from 'tus-js-client';
import type { Actor } from '../../src/shared/access/actor.ts';
import { bearer, buildApiKey, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { listen } from '../setup/raw-http.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { fixture } from './fixtures.ts';

const MAX = 64 * 1024;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const metadata = (fileName: string) => `filename ${Buffer.from(fileName).toString('base64')}`;
const TUS = { 'Tus-Resumable': '1.0.0' };

describe('resumable uploads (tus)', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  let endpoint: string;
  let orgId: string;
  let adminToken: string;
  let adminActor: Actor;

  before(async () => {
    t = await startTestApp({ env: { LIBRARY_MAX_FILE_BYTES: String(MAX), LIBRARY_UPLOAD_EXPIRY_HOURS: '2' } });
    server = await listen(t);
    endpoint = `http://127.0.0.1:${server.port}/api/uploads`;
    const org = await buildOrganization();
    orgId = org.id;
    const admin = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: orgId });
    adminToken = await tokenFor(t, admin);
    adminActor = { type: 'user', id: admin.id, organizationId: orgId, role: 'ROLE_CLIENT_ADMIN', mfaVerified: false };
  });
  after(async () => {
    await server.close();
    await t.close();
  });

  /** Sends `part` as a PATCH and cuts the connection before the announced length arrives. */
  function interruptedPatch(
    location: string,
    token: string,
    offset: number,
    part: Buffer,
    announced: number,
  ): Promise<void> {
    return new Promise((resolve) => {
      const req = http.request(`http://127.0.0.1:${server.port}${location}`, {
        method: 'PATCH',
        headers: {
          ...bearer(token),
          ...TUS,
          'Upload-Offset': String(offset),
          'Content-Type': 'application/offset+octet-stream',
          'Content-Length': String(announced),
        },
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write(part, () => setTimeout(() => req.destroy(), 300));
    });
  }

  it('when tus-js-client uploads a file in chunks, then it finishes and the resource service can take it once', async () => {
    const bytes = randomBytes(40 * 1024);
    const url = await new Promise<string>((resolve, reject) => {
      const upload = new tus.Upload(bytes, {
        endpoint,
        headers: bearer(adminToken),
        metadata: { filename: 'report 2026.pdf' },
        chunkSize: 16 * 1024, // three PATCHes
        retryDelays: [],
        onError: reject,
        onSuccess: () => resolve(upload.url!),
      });
      upload.start();
    });
    const uploadId = url.split('/').pop()!;

    // HEAD after the finish still reports the whole file
    const head = await t.http.head(`/api/uploads/${uploadId}`).set(bearer(adminToken)).set(TUS);
    assert.equal(head.status, 200);
    assert.equal(head.headers['upload-offset'], String(bytes.length));
    assert.ok(head.headers['ratelimit-policy'] ?? head.headers['x-ratelimit-limit'], 'rate-limit headers on 2xx');

    const taken = await t.container.services.uploads.take(adminActor, uploadId);
    assert.equal(taken.sizeBytes, bytes.length);
    assert.equal(taken.sha256, sha256(bytes));
    assert.equal(taken.fileName, 'report 2026.pdf');
    assert.match(taken.tempKey, /^tmp\//);
    assert.deepEqual(await buffer(await t.container.storage.get(taken.tempKey)), bytes);
    // tus's own copy is gone: the bytes live once, in storage
    assert.equal(existsSync(path.join(t.config.library.uploadsDir, uploadId)), false);
    await assert.rejects(t.container.services.uploads.take(adminActor, uploadId), { code: 'not_found' });
    await t.container.storage.delete(taken.tempKey);
  });

  it('when a PATCH is interrupted, then HEAD gives the offset reached and the upload resumes from it', async () => {
    const bytes = randomBytes(30_000);
    const created = await t.http
      .post('/api/uploads')
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Length', String(bytes.length))
      .set('Upload-Metadata', metadata('video.mp4'));
    assert.equal(created.status, 201);
    assert.ok(created.headers['x-ratelimit-limit']);
    const location = created.headers.location!;
    assert.match(location, /^\/api\/uploads\/[0-9a-f-]{36}$/);

    await interruptedPatch(location, adminToken, 0, bytes.subarray(0, 12_000), bytes.length);
    let head = await t.http.head(location).set(bearer(adminToken)).set(TUS);
    // tus answers an unfinished HEAD with Cache-Control: no-store and the offset it stored
    for (let i = 0; i < 20 && head.headers['upload-offset'] !== '12000'; i += 1) {
      await new Promise((r) => setTimeout(r, 100)); // the server may still be flushing the cut request
      head = await t.http.head(location).set(bearer(adminToken)).set(TUS);
    }
    assert.equal(head.status, 200);
    assert.equal(head.headers['upload-offset'], '12000');
    assert.equal(head.headers['upload-length'], String(bytes.length));

    // a PATCH at the wrong offset is refused by the protocol
    const wrong = await t.http
      .patch(location)
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Offset', '0')
      .set('Content-Type', 'application/offset+octet-stream')
      .send(bytes.subarray(0, 10));
    assert.equal(wrong.status, 409);

    const rest = await t.http
      .patch(`/api/uploads/${location.split('/').pop()}`)
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Offset', '12000')
      .set('Content-Type', 'application/offset+octet-stream')
      .send(bytes.subarray(12_000));
    assert.equal(rest.status, 204);
    assert.equal(rest.headers['upload-offset'], String(bytes.length));
    assert.ok(rest.headers['x-ratelimit-remaining']);

    const taken = await t.container.services.uploads.take(adminActor, location.split('/').pop()!);
    assert.equal(taken.sha256, sha256(bytes));
    assert.equal(taken.fileName, 'video.mp4');
    await t.container.storage.delete(taken.tempKey);
  });

  it('when an upload announces more than LIBRARY_MAX_FILE_BYTES, then it is refused with 413 and nothing is created', async () => {
    const res = await t.http
      .post('/api/uploads')
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Length', String(MAX + 1));
    assert.equal(res.status, 413);
    assert.equal(res.body.code ?? res.body.type?.split('/').pop(), 'payload_too_large');
    const [{ count }] = await t.container.sql.rows<{ count: number }>(
      'SELECT count(*)::int AS count FROM resource_uploads WHERE size_bytes > $1',
      [MAX],
    );
    assert.equal(count, 0);
  });

  it('when Upload-Length is missing, then the creation is refused with 400', async () => {
    const res = await t.http.post('/api/uploads').set(bearer(adminToken)).set(TUS);
    assert.equal(res.status, 400);
  });

  it('when Upload-Metadata names a file longer than 255 characters, then it is cut before its extension, never inside a character', async () => {
    const sent = '\u{1F600}'.repeat(300) + '.pdf';
    const res = await t.http
      .post('/api/uploads')
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Length', '4')
      .set('Upload-Metadata', metadata(sent))
      .set('Content-Type', 'application/offset+octet-stream')
      .send(Buffer.from('%PDF'));
    assert.equal(res.status, 201);
    const taken = await t.container.services.uploads.take(adminActor, res.headers.location!.split('/').pop()!);
    assert.equal([...taken.fileName].length, 255);
    assert.equal(taken.fileName, '\u{1F600}'.repeat(251) + '.pdf');
    await t.container.storage.delete(taken.tempKey);
  });

  it("when Upload-Metadata is malformed, then 400 problem+json names it (not tus's text/plain) and nothing is created", async () => {
    const before = (await t.container.sql.one<{ count: number }>(
      'SELECT count(*)::int AS count FROM resource_uploads',
    ))!.count;
    for (const metadata of ['filename !!!notbase64', 'filename YQ==,filename Yg==', 'bad key YQ==', ' ']) {
      const res = await t.http
        .post('/api/uploads')
        .set(bearer(adminToken))
        .set(TUS)
        .set('Upload-Length', '10')
        .set('Upload-Metadata', metadata);
      const problem = expectProblem(res, 400, 'validation_failed');
      assert.deepEqual(
        problem.errors.map((e: { field: string }) => e.field),
        ['Upload-Metadata'],
        metadata,
      );
    }
    // a file name that is not UTF-8, or holds a NUL, is refused as in a multipart part
    for (const [bytes, message] of [
      [Buffer.from([0xed, 0xa0, 0x80, 0x2e, 0x70, 0x64, 0x66]), 'is not valid UTF-8'],
      [Buffer.from('a\0b.pdf'), 'must not contain the NUL character (U+0000)'],
    ] as const) {
      const res = await t.http
        .post('/api/uploads')
        .set(bearer(adminToken))
        .set(TUS)
        .set('Upload-Length', '10')
        .set('Upload-Metadata', `filename ${bytes.toString('base64')}`);
      assert.deepEqual(expectProblem(res, 400, 'validation_failed').errors, [
        { field: 'Upload-Metadata filename', message },
      ]);
    }
    assert.equal(
      (await t.container.sql.one<{ count: number }>('SELECT count(*)::int AS count FROM resource_uploads'))!.count,
      before,
    );
    // well-formed metadata (a key alone, or key and base64 value) is accepted as before
    await t.http
      .post('/api/uploads')
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Length', '10')
      .set('Upload-Metadata', `filename ${Buffer.from('notes.pdf').toString('base64')},is_confidential`)
      .expect(201);
  });

  it('when another organization, another admin, a client user or no credential asks for an upload, then it is 404, 403 or 401', async () => {
    const created = await t.http
      .post('/api/uploads')
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Length', '10')
      .set('Upload-Metadata', metadata('a.pdf'));
    const location = created.headers.location!;

    const otherOrg = await buildOrganization();
    const { secret } = await buildApiKey(otherOrg.id);
    const foreign = { Authorization: `Bearer ${secret}` };
    assert.equal((await t.http.head(location).set(foreign).set(TUS)).status, 404);
    const patch = await t.http
      .patch(location)
      .set(foreign)
      .set(TUS)
      .set('Upload-Offset', '0')
      .set('Content-Type', 'application/offset+octet-stream')
      .send(Buffer.alloc(10));
    assert.equal(patch.status, 404);
    assert.equal(patch.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal((await t.http.delete(location).set(foreign).set(TUS)).status, 404);
    await assert.rejects(
      t.container.services.uploads.take(
        { type: 'api_key', id: 'k', organizationId: otherOrg.id, role: 'API_KEY', mfaVerified: true },
        location.split('/').pop()!,
      ),
      { code: 'not_found' },
    );

    const otherAdmin = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: orgId });
    assert.equal(
      (
        await t.http
          .head(location)
          .set(bearer(await tokenFor(t, otherAdmin)))
          .set(TUS)
      ).status,
      404,
    );

    const clientUser = await buildUser({ role: 'ROLE_CLIENT_USER', organizationId: orgId });
    const userToken = await tokenFor(t, clientUser);
    assert.equal(
      (await t.http.post('/api/uploads').set(bearer(userToken)).set(TUS).set('Upload-Length', '10')).status,
      403,
    );

    assert.equal((await t.http.head(location).set(TUS)).status, 401);
    // not finished: the resource service cannot take it yet
    await assert.rejects(t.container.services.uploads.take(adminActor, location.split('/').pop()!), {
      code: 'not_found',
    });
  });

  it("when an API key uploads, then the upload is the key's", async () => {
    const { apiKey, secret } = await buildApiKey(orgId);
    const key = { Authorization: `Bearer ${secret}` };
    const created = await t.http
      .post('/api/uploads')
      .set(key)
      .set(TUS)
      .set('Upload-Length', '5')
      .set('Upload-Metadata', metadata('../../etc/notes.txt'));
    assert.equal(created.status, 201);
    const done = await t.http
      .patch(created.headers.location!)
      .set(key)
      .set(TUS)
      .set('Upload-Offset', '0')
      .set('Content-Type', 'application/offset+octet-stream')
      .send(Buffer.from('hello'));
    assert.equal(done.status, 204);
    assert.equal((await t.http.head(created.headers.location!).set(bearer(adminToken)).set(TUS)).status, 404);
    const taken = await t.container.services.uploads.take(
      { type: 'api_key', id: apiKey.id, organizationId: orgId, role: 'API_KEY', mfaVerified: true },
      created.headers.location!.split('/').pop()!,
    );
    assert.equal(taken.fileName, 'notes.txt'); // only the last segment of the client's name
    await t.container.storage.delete(taken.tempKey);
  });

  it('when an upload is terminated with DELETE, then its row and bytes are gone', async () => {
    const created = await t.http.post('/api/uploads').set(bearer(adminToken)).set(TUS).set('Upload-Length', '100');
    const location = created.headers.location!;
    const id = location.split('/').pop()!;
    await t.http
      .patch(location)
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Offset', '0')
      .set('Content-Type', 'application/offset+octet-stream')
      .send(Buffer.alloc(40));
    const deleted = await t.http.delete(`/api/uploads/${id}`).set(bearer(adminToken)).set(TUS);
    assert.equal(deleted.status, 204);
    assert.equal(existsSync(path.join(t.config.library.uploadsDir, id)), false);
    for (let i = 0; i < 20 && (await t.container.sql.one('SELECT 1 FROM resource_uploads WHERE id = $1', [id])); i += 1)
      await new Promise((r) => setTimeout(r, 50));
    assert.equal(await t.container.sql.one('SELECT 1 FROM resource_uploads WHERE id = $1', [id]), undefined);
  });

  it('when the write that takes an upload is refused, then the upload is given back with its bytes and a corrected write takes it', async () => {
    const bytes = await fixture('pdf');
    const created = await t.http
      .post('/api/uploads')
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Length', String(bytes.length))
      .set('Upload-Metadata', metadata('guide.pdf'));
    const id = created.headers.location!.split('/').pop()!;
    await t.http
      .patch(`/api/uploads/${id}`)
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Offset', '0')
      .set('Content-Type', 'application/offset+octet-stream')
      .send(bytes)
      .expect(204);
    const refused = await t.http
      .post('/api/resources')
      .set(bearer(adminToken))
      .field('name', 'Guide')
      .field('categoryIds', randomUUID())
      .field('uploadId', id);
    expectProblem(refused, 422, 'unprocessable');
    const accepted = await t.http
      .post('/api/resources')
      .set(bearer(adminToken))
      .field('name', 'Guide')
      .field('uploadId', id)
      .expect(201);
    assert.equal(accepted.body.file.sha256, sha256(bytes));
    // taken once: the upload is gone with the write that used it
    const again = await t.http
      .post('/api/resources')
      .set(bearer(adminToken))
      .field('name', 'Guide')
      .field('uploadId', id);
    expectProblem(again, 404, 'not_found');
  });

  it('when DELETE arrives while a complete upload is being finished, then problem+json 409 with Retry-After, and the upload is kept', async () => {
    const created = await t.http.post('/api/uploads').set(bearer(adminToken)).set(TUS).set('Upload-Length', '100');
    const id = created.headers.location!.split('/').pop()!;
    // every byte is in tus's file but the row is still receiving: the state while the last PATCH runs the finish
    await appendFile(path.join(t.config.library.uploadsDir, id), Buffer.alloc(100, 7));
    const refused = await t.http.delete(`/api/uploads/${id}`).set(bearer(adminToken)).set(TUS);
    expectProblem(refused, 409, 'conflict');
    assert.equal(refused.headers['retry-after'], '1');
    assert.ok(existsSync(path.join(t.config.library.uploadsDir, id)), 'the bytes are kept for the finish');
    assert.ok(await t.container.sql.one('SELECT 1 FROM resource_uploads WHERE id = $1', [id]));
  });

  it('when a PATCH has no Upload-Offset or another Content-Type, then problem+json 400 or 415 (not tus text/plain 403)', async () => {
    const created = await t.http
      .post('/api/uploads')
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Length', '8')
      .expect(201);
    const url = `/api/uploads/${created.headers.location!.split('/').pop()}`;
    const noOffset = await t.http
      .patch(url)
      .set(bearer(adminToken))
      .set(TUS)
      .set('Content-Type', 'application/offset+octet-stream')
      .send(Buffer.from('12345678'));
    const problem = expectProblem(noOffset, 400, 'validation_failed');
    assert.equal(problem.errors[0].field, 'Upload-Offset');
    assert.ok(noOffset.headers['x-ratelimit-limit'], 'rate-limit headers on a refusal');
    expectProblem(
      await t.http
        .patch(url)
        .set(bearer(adminToken))
        .set(TUS)
        .set('Upload-Offset', 'abc')
        .set('Content-Type', 'application/offset+octet-stream')
        .send(Buffer.from('12345678')),
      400,
      'validation_failed',
    );
    expectProblem(
      await t.http.patch(url).set(bearer(adminToken)).set(TUS).set('Upload-Offset', '0').send({ bytes: 'x' }),
      415,
      'unsupported_media_type',
    );
    // the upload is untouched: its offset is still 0, and the right PATCH completes it
    const head = await t.http.head(url).set(bearer(adminToken)).set(TUS).expect(200);
    assert.equal(head.headers['upload-offset'], '0');
    await t.http
      .patch(url)
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Offset', '0')
      .set('Content-Type', 'application/offset+octet-stream')
      .send(Buffer.from('12345678'))
      .expect(204);
  });

  it("when OPTIONS is asked, then the protocol's capabilities are announced without a credential", async () => {
    const res = await t.http.options('/api/uploads');
    assert.equal(res.status, 204);
    assert.equal(res.headers['tus-version'], '1.0.0');
    assert.equal(res.headers['tus-max-size'], String(MAX));
    // what is announced is what is served: a deferred length is refused, so it is not offered
    assert.deepEqual((res.headers['tus-extension'] ?? '').split(','), [
      'creation',
      'creation-with-upload',
      'termination',
      'expiration',
    ]);
    // the same answer at an upload's URL, whether or not the upload exists
    const atUpload = await t.http.options('/api/uploads/00000000-0000-4000-8000-000000000000');
    assert.equal(atUpload.status, 204);
    for (const header of ['tus-resumable', 'tus-version', 'tus-max-size', 'tus-extension'])
      assert.equal(atUpload.headers[header], res.headers[header], header);
  });

  it('when uploads pass their expiry, then none can be taken and the job removes the unfinished and the untaken ones', async () => {
    const unfinished = await t.http.post('/api/uploads').set(bearer(adminToken)).set(TUS).set('Upload-Length', '100');
    const unfinishedId = unfinished.headers.location!.split('/').pop()!;
    await t.http
      .patch(unfinished.headers.location!)
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Offset', '0')
      .set('Content-Type', 'application/offset+octet-stream')
      .send(Buffer.alloc(10));
    const finished = await t.http.post('/api/uploads').set(bearer(adminToken)).set(TUS).set('Upload-Length', '3');
    await t.http
      .patch(finished.headers.location!)
      .set(bearer(adminToken))
      .set(TUS)
      .set('Upload-Offset', '0')
      .set('Content-Type', 'application/offset+octet-stream')
      .send(Buffer.from('abc'));
    const finishedId = finished.headers.location!.split('/').pop()!;
    const tempKey = `tmp/uploads/${finishedId}`;
    assert.ok(await t.container.storage.stat(tempKey));

    const run = (await import('../../src/modules/library/uploads/upload-expiry.job.ts')).uploadExpiryJob.handler(
      t.container.services.uploads,
    );
    const context = { jobId: 'test', attempt: 0, logger: t.container.logger };
    await run({}, context);
    assert.ok(
      await t.container.sql.one('SELECT 1 FROM resource_uploads WHERE id = $1', [unfinishedId]),
      'not expired yet',
    );

    t.clock.advance(3 * 3600_000);
    // past its expiry, before the job has removed it: no write can take it any more
    await assert.rejects(t.container.services.uploads.take(adminActor, finishedId), { code: 'not_found' });
    await run({}, context);
    assert.equal(
      await t.container.sql.one('SELECT 1 FROM resource_uploads WHERE id = ANY($1::uuid[])', [
        [unfinishedId, finishedId],
      ]),
      undefined,
    );
    assert.equal(existsSync(path.join(t.config.library.uploadsDir, unfinishedId)), false);
    assert.equal(await t.container.storage.stat(tempKey), null);
  });
});
