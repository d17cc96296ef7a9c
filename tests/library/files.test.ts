// The library's file paths through the real app and storage: upload of every format (type by content),
// SVG sanitising, versions, delete, downloads (Content-Disposition, ETag/304, ranges, counting) and the
// domain events that become webhooks.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readlink, rm } from 'node:fs/promises';
import { get as httpGet, type IncomingMessage } from 'node:http';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pino } from 'pino';
import { after, before, describe, it } from 'node:test';
import type { Actor } from '../../src/shared/access/actor.ts';
import { errors } from '../../src/shared/errors.ts';
import { ResourceService } from '../../src/modules/library/resource.service.ts';
import type { CompletedUpload, CompletedUploads } from '../../src/modules/library/uploads/completed-upload.ts';
import { buildOrganization, buildUser, bearer, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { EXTENSIONS, fixture, HOSTILE_SVG, type FixtureFormat } from './fixtures.ts';
import { privateStorage, storedKeys, activeMemberToken, until } from './library-helpers.ts';
import { binaryBody } from '../setup/body-parsers.ts';
import { connect, listen } from '../setup/raw-http.ts';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The files this process holds open (Linux). */
async function openFiles(): Promise<string[]> {
  const descriptors = await readdir('/proc/self/fd');
  const targets = await Promise.all(descriptors.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
  return targets.filter(Boolean);
}

describe('library files: upload, versions, delete, download', () => {
  let t: TestApp;
  let storage: Awaited<ReturnType<typeof privateStorage>>;
  let organizationId: string;
  let admin: string;
  let adminActor: Actor;
  let staff: string;
  let member: string;

  /** What the app logged at error level, by message. */
  const failures: string[] = [];

  before(async () => {
    storage = await privateStorage();
    const sink = new Writable({
      write(line: Buffer, _encoding, done) {
        failures.push(JSON.parse(line.toString()).msg);
        done();
      },
    });
    t = await startTestApp({ env: storage.env, logger: pino({ level: 'error' }, sink) });
    organizationId = (await buildOrganization()).id;
    const adminUser = await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId });
    adminActor = { type: 'user', id: adminUser.id, organizationId, role: 'ROLE_CLIENT_ADMIN', mfaVerified: false };
    admin = await tokenFor(t, adminUser);
    staff = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_USER', organizationId }));
    member = await activeMemberToken(t, organizationId);
  });
  after(async () => {
    await t.close();
    await storage.remove();
  });

  const upload = (bytes: Buffer, fileName: string, fields: Record<string, string | string[]> = {}) => {
    const request = t.http.post('/api/resources').set(bearer(admin));
    for (const [name, value] of Object.entries({ name: 'A resource', ...fields }))
      for (const item of [value].flat()) request.field(name, item);
    return request.attach('file', bytes, { filename: fileName, contentType: 'application/octet-stream' });
  };

  const storageKeyOf = async (id: string) =>
    (await t.container.sql.one<{ key: string }>(
      'SELECT storage_key AS key FROM resource_versions WHERE resource_id = $1 AND version = 1',
      [id],
    ))!.key;

  const download = (path: string, token = admin) => t.http.get(path).set(bearer(token)).buffer(true).parse(binaryBody);

  it('when each accepted format is uploaded, then its type and format come from the content and the bytes are stored as sent', async () => {
    const expected: Record<FixtureFormat, [string, string]> = {
      pdf: ['document', 'application/pdf'],
      docx: ['document', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      xlsx: ['document', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      pptx: ['document', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
      mp4: ['video', 'video/mp4'],
      webm: ['video', 'video/webm'],
      mp3: ['audio', 'audio/mpeg'],
      wav: ['audio', 'audio/wav'],
      png: ['image', 'image/png'],
      jpeg: ['image', 'image/jpeg'],
    };
    for (const format of Object.keys(expected) as FixtureFormat[]) {
      const bytes = await fixture(format);
      const res = await upload(bytes, `sample.${EXTENSIONS[format]}`, { status: 'published', accessLevel: 'Public' });
      assert.equal(res.status, 201, `${format}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.format, format);
      assert.equal(res.body.type, expected[format][0]);
      assert.equal(res.body.file.contentType, expected[format][1]);
      assert.equal(res.body.file.sha256, sha256(bytes));
      assert.equal(res.body.file.sizeBytes, bytes.length);
      assert.equal(res.headers.location, `/api/resources/${res.body.id}`);
      const got = await download(`/api/resources/${res.body.id}/download`).expect(200);
      assert.equal(got.headers['content-type'], expected[format][1]);
      assert.ok(Buffer.compare(got.body as Buffer, bytes) === 0, `${format}: the download is the upload`);
    }
  });

  it('when a file name lies about the content, or the content is of no accepted type, then 415 names the detected type (400 for an empty file) and nothing is kept', async () => {
    const before = await storedKeys(t);
    const lying = await upload(await fixture('png'), 'report.pdf');
    const problem = expectProblem(lying, 415, 'unsupported_media_type');
    assert.equal(problem.detectedType, 'image/png');
    const zip = Buffer.from('504b0304140000000000', 'hex');
    const unknown = await upload(Buffer.concat([zip, Buffer.alloc(200)]), 'archive.zip');
    assert.match(expectProblem(unknown, 415, 'unsupported_media_type').detectedType, /zip|unknown/);
    const text = await upload(Buffer.from('just some text'), 'notes.txt');
    assert.equal(expectProblem(text, 415, 'unsupported_media_type').detectedType, 'unknown');
    const empty = expectProblem(await upload(Buffer.alloc(0), 'minutes.pdf'), 400, 'validation_failed');
    assert.deepEqual(empty.errors, [{ field: 'file', message: 'is empty (0 bytes)' }]);
    const featured = await upload(await fixture('pdf'), 'a.pdf').attach(
      'featuredImage',
      await fixture('mp3'),
      'cover.png',
    );
    assert.equal(expectProblem(featured, 415, 'unsupported_media_type').errors[0].field, 'featuredImage');
    assert.deepEqual(await storedKeys(t), before);
  });

  it('when a field or a file name is not UTF-8, then 400 names it and nothing is kept (it was stored as U+FFFD)', async () => {
    const before = await storedKeys(t);
    const boundary = '----guildhall-bytes';
    const part = (headers: Buffer, body: Buffer) =>
      Buffer.concat([Buffer.from(`--${boundary}\r\n`), headers, Buffer.from('\r\n\r\n'), body, Buffer.from('\r\n')]);
    const send = (name: Buffer, fileName: Buffer) =>
      t.http
        .post('/api/resources')
        .set(bearer(admin))
        .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
        .serialize((body) => body)
        .send(
          Buffer.concat([
            part(Buffer.from('Content-Disposition: form-data; name="name"'), name),
            part(
              Buffer.concat([
                Buffer.from('Content-Disposition: form-data; name="file"; filename="'),
                fileName,
                Buffer.from('"'),
              ]),
              Buffer.from('%PDF-1.4\n%%EOF\n'),
            ),
            Buffer.from(`--${boundary}--\r\n`),
          ]),
        );
    const badName = expectProblem(
      await send(Buffer.from([0x41, 0xff, 0x42]), Buffer.from('ok.pdf')),
      400,
      'validation_failed',
    );
    assert.deepEqual(badName.errors, [{ field: 'name', message: 'is not valid UTF-8' }]);
    const surrogate = Buffer.from([0xed, 0xa0, 0x80, 0x2e, 0x70, 0x64, 0x66]); // an encoded lone surrogate, ".pdf"
    const badFile = expectProblem(await send(Buffer.from('Fine'), surrogate), 400, 'validation_failed');
    assert.deepEqual(badFile.errors, [{ field: 'file.filename', message: 'is not valid UTF-8' }]);
    assert.deepEqual(await storedKeys(t), before, 'no file kept');
    // UTF-8 as sent is read as sent
    const fine = await send(Buffer.from('Réunion – été'), Buffer.from('Compte-rendu été.pdf')).expect(201);
    assert.equal(fine.body.name, 'Réunion – été');
    assert.equal(fine.body.file.name, 'Compte-rendu été.pdf');
  });

  it('when a file name is longer than 255 characters, then it is cut to 255 before its extension, never inside a character', async () => {
    const longNames = ['A'.repeat(252) + '.pdf', '\u{1F600}'.repeat(300) + '.pdf'];
    for (const sent of longNames) {
      const res = await upload(await fixture('pdf'), sent);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const { fileName } = (await t.container.sql.one<{ fileName: string }>(
        'SELECT file_name AS "fileName" FROM resource_versions WHERE resource_id = $1',
        [res.body.id],
      ))!;
      assert.equal([...fileName].length, 255);
      assert.ok(fileName.endsWith('.pdf'), fileName.slice(-10));
      assert.ok(sent.startsWith(fileName.slice(0, -4)));
    }
  });

  it('when an upload is retried with its Idempotency-Key (a new multipart boundary), then the first answer comes back; another file is 422', async () => {
    const bytes = await fixture('pdf');
    const first = await upload(bytes, 'retry.pdf', { name: 'Retried' }).set('Idempotency-Key', 'upload-retry-1');
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const again = await upload(bytes, 'retry.pdf', { name: 'Retried' }).set('Idempotency-Key', 'upload-retry-1');
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body.id, first.body.id);
    const other = await upload(await fixture('png'), 'retry.png', { name: 'Retried' }).set(
      'Idempotency-Key',
      'upload-retry-1',
    );
    expectProblem(other, 422, 'idempotency_key_reused');
    const count = await t.container.sql.one<{ n: number }>(
      "SELECT count(*)::int AS n FROM resources WHERE name = 'Retried' AND organization_id = $1",
      [organizationId],
    );
    assert.equal(count?.n, 1);
  });

  it('when an SVG is uploaded, then it is sanitised, stored sanitised and served with CSP sandbox and nosniff', async () => {
    const res = await upload(Buffer.from(HOSTILE_SVG), 'drawing.svg').expect(201);
    assert.equal(res.body.format, 'svg');
    assert.equal(res.body.file.contentType, 'image/svg+xml');
    const got = await download(`/api/resources/${res.body.id}/download`).expect(200);
    const svg = (got.body as Buffer).toString('utf8');
    assert.equal(res.body.file.sha256, sha256(got.body as Buffer), 'the sanitised bytes are what is stored and hashed');
    for (const gone of ['<script', 'onload', 'onclick', 'foreignObject', '<image', 'evil.example', 'javascript:'])
      assert.ok(!svg.includes(gone), `${gone} removed: ${svg}`);
    assert.match(svg, /<rect/);
    assert.match(got.headers['content-security-policy'], /^sandbox/);
    assert.equal(got.headers['x-content-type-options'], 'nosniff');
    const doctype = await upload(
      Buffer.from(
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>',
      ),
      'x.svg',
    );
    expectProblem(doctype, 415, 'unsupported_media_type');
    const foreign = await upload(Buffer.from('<svg xmlns="http://example.com/not-svg"><rect/></svg>'), 'y.svg');
    expectProblem(foreign, 415, 'unsupported_media_type');
    // parsed recursively on the request's thread: too deep or too many elements is refused unparsed,
    // at once, while the server goes on answering (5,000 nested <g> overflowed the stack after seconds)
    const svgOf = (body: string) => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg">${body}</svg>`);
    for (const [body, why] of [
      ['<g>'.repeat(5000) + '</g>'.repeat(5000), /nested more than 256 elements deep/],
      ['<rect/>'.repeat(100_000), /more than 20000 elements/],
    ] as const) {
      const started = Date.now();
      const [refused] = await Promise.all([upload(svgOf(body), 'deep.svg'), t.http.get('/health').expect(200)]);
      assert.match(expectProblem(refused, 415, 'unsupported_media_type').detail, why);
      assert.ok(Date.now() - started < 2000, `answered in ${Date.now() - started} ms`);
    }
    const nested = await upload(svgOf('<g>'.repeat(200) + '<rect/>' + '</g>'.repeat(200)), 'nested.svg');
    assert.equal(nested.status, 201, 'a drawing 200 deep is a drawing');
  });

  it('when a resource is uploaded with metadata and a featured image, then the fields, categories and price are stored', async () => {
    const [category] = await t.container.sql.rows<{ id: string }>(
      "INSERT INTO resource_categories (organization_id, name) VALUES ($1, 'Guides') RETURNING id",
      [organizationId],
    );
    const res = await upload(await fixture('pdf'), 'Guide.pdf', {
      name: '  Member guide ',
      description: 'How to',
      categoryIds: [category!.id],
      tags: ['guide', 'onboarding', 'guide'],
      accessLevel: 'Paid',
      priceAmount: '12.5',
      priceCurrency: 'eur',
      status: 'published',
    })
      .attach('featuredImage', await fixture('jpeg'), 'cover.jpg')
      .expect(201);
    assert.equal(res.body.name, 'Member guide');
    assert.deepEqual(res.body.tags, ['guide', 'onboarding']);
    assert.deepEqual(res.body.categories, [{ id: category!.id, name: 'Guides' }]);
    assert.deepEqual(res.body.price, { amount: '12.50', currency: 'EUR' });
    assert.equal(res.body.accessLevel, 'paid');
    assert.equal(res.body.status, 'published');
    assert.ok(res.body.publishedAt);
    assert.equal(res.body.links.featuredImage, `/api/resources/${res.body.id}/featured-image`);
    const keys = await storedKeys(t, `orgs/${organizationId}/resources/${res.body.id}/`);
    assert.equal(keys.length, 2, 'the file and the featured image under the resource prefix');
    assert.ok(keys.some((key) => /\/v1-[0-9a-f-]{36}$/.test(key)));
    assert.ok(keys.some((key) => /\/featured-[0-9a-f-]{36}\.jpg$/.test(key)));
    const events = await t.container.sql.rows<{ type: string }>(
      "SELECT type FROM domain_events WHERE data->>'id' = $1",
      [res.body.id],
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['resource.published'],
    );
    const audit = await t.container.sql.rows<{ action: string }>('SELECT action FROM audit_log WHERE target_id = $1', [
      res.body.id,
    ]);
    assert.deepEqual(
      audit.map((a) => a.action),
      ['resource.created'],
    );
  });

  it('when a client user or a member tries to upload, then 403 before the body matters', async () => {
    for (const token of [staff, member]) {
      const res = await t.http
        .post('/api/resources')
        .set(bearer(token))
        .field('name', 'x')
        .attach('file', Buffer.from('%PDF-1.4'), 'a.pdf');
      expectProblem(res, 403, 'forbidden');
    }
  });

  it('when the file is replaced, then a new version is current, the old one stays listed and downloadable, and the events say so', async () => {
    const first = await fixture('pdf');
    const created = await upload(first, 'v1.pdf', { status: 'draft' }).expect(201);
    const id = created.body.id as string;
    const second = await fixture('docx');
    const updated = await t.http
      .put(`/api/resources/${id}`)
      .set(bearer(admin))
      .field('name', 'Renamed')
      .field('status', 'published')
      .attach('file', second, 'v2.docx')
      .expect(200);
    assert.equal(updated.body.currentVersion, 2);
    assert.equal(updated.body.format, 'docx');
    assert.equal(updated.body.name, 'Renamed');
    assert.equal(updated.body.status, 'published');
    const versions = await t.http.get(`/api/resources/${id}/versions`).set(bearer(admin)).expect(200);
    assert.deepEqual(
      versions.body.data.map((v: { version: number; current: boolean }) => [v.version, v.current]),
      [
        [2, true],
        [1, false],
      ],
    );
    assert.equal(versions.body.pagination.totalItems, 2);
    const old = await download(`/api/resources/${id}/versions/1/download`).expect(200);
    assert.ok(Buffer.compare(old.body as Buffer, first) === 0);
    const current = await download(`/api/resources/${id}/download`).expect(200);
    assert.ok(Buffer.compare(current.body as Buffer, second) === 0);
    expectProblem(await t.http.get(`/api/resources/${id}/versions`).set(bearer(staff)), 403, 'forbidden');
    expectProblem(await t.http.get(`/api/resources/${id}/versions/3/download`).set(bearer(admin)), 404, 'not_found');

    const metadata = await t.http
      .put(`/api/resources/${id}`)
      .set(bearer(admin))
      .send({ status: 'draft', description: 'Now a draft' })
      .expect(200);
    assert.equal(metadata.body.status, 'draft');
    assert.equal(metadata.body.publishedAt, null);
    assert.equal(metadata.body.currentVersion, 2);
    const events = await t.container.sql.rows<{ type: string }>(
      "SELECT type FROM domain_events WHERE data->>'id' = $1 ORDER BY occurred_at, type",
      [id],
    );
    const types = events.map((e) => e.type).sort();
    assert.deepEqual(
      types,
      [
        'resource.published',
        'resource.unpublished',
        'resource.updated',
        'resource.updated',
        'resource.version_added',
      ].sort(),
    );
  });

  it('when two replacements of one file run at once, then both become versions', async () => {
    const created = await upload(await fixture('pdf'), 'a.pdf').expect(201);
    const id = created.body.id as string;
    const [a, b] = await Promise.all([
      t.http
        .put(`/api/resources/${id}`)
        .set(bearer(admin))
        .attach('file', await fixture('png'), 'a.png'),
      t.http
        .put(`/api/resources/${id}`)
        .set(bearer(admin))
        .attach('file', await fixture('jpeg'), 'b.jpg'),
    ]);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(b.status, 200, JSON.stringify(b.body));
    const versions = await t.http.get(`/api/resources/${id}/versions`).set(bearer(admin)).expect(200);
    assert.deepEqual(
      versions.body.data.map((v: { version: number }) => v.version),
      [3, 2, 1],
    );
    assert.deepEqual([a.body.currentVersion, b.body.currentVersion].sort(), [2, 3]);
  });

  it('when a price is sent for a free level or missing for a paid one, then 400 names it; leaving paid drops the price', async () => {
    const created = await upload(await fixture('pdf'), 'p.pdf', {
      accessLevel: 'paid',
      priceAmount: '5',
      priceCurrency: 'USD',
    }).expect(201);
    const id = created.body.id as string;
    const refused = expectProblem(
      await t.http
        .put(`/api/resources/${id}`)
        .set(bearer(admin))
        .send({ accessLevel: 'members', priceAmount: '3.00', priceCurrency: 'USD' }),
      400,
      'validation_failed',
    );
    assert.equal(refused.errors[0].field, 'priceAmount');
    const free = await t.http
      .put(`/api/resources/${id}`)
      .set(bearer(admin))
      .send({ accessLevel: 'Fully Gated' })
      .expect(200);
    assert.equal(free.body.price, null);
    assert.deepEqual(free.body.accessLabels, { management: 'Fully Gated', library: 'Member' });
    const missing = expectProblem(
      await t.http.put(`/api/resources/${id}`).set(bearer(admin)).send({ accessLevel: 'paid' }),
      400,
      'validation_failed',
    );
    assert.deepEqual(
      missing.errors.map((e: { field: string }) => e.field),
      ['priceAmount', 'priceCurrency'],
    );
    expectProblem(
      await t.http.put(`/api/resources/${id}`).set(bearer(admin)).send({ nope: 1 }),
      400,
      'validation_failed',
    );
    // nothing to change (the contract's minProperties: 1)
    expectProblem(await t.http.put(`/api/resources/${id}`).set(bearer(admin)).send({}), 400, 'validation_failed');
    // a price is an ISO 4217 currency, more than zero, in the currency's minor digits (trailing zeros aside)
    for (const [price, field] of [
      [{ priceAmount: '5', priceCurrency: 'QQQ' }, 'priceCurrency'],
      [{ priceAmount: '0', priceCurrency: 'USD' }, 'priceAmount'],
      [{ priceAmount: '1.999', priceCurrency: 'JPY' }, 'priceAmount'],
      [{ priceAmount: '1.005', priceCurrency: 'EUR' }, 'priceAmount'],
    ] as const) {
      const problem = expectProblem(
        await t.http
          .put(`/api/resources/${id}`)
          .set(bearer(admin))
          .send({ accessLevel: 'paid', ...price }),
        400,
        'validation_failed',
      );
      assert.equal(problem.errors[0].field, field, JSON.stringify(price));
    }
    for (const [price, shown] of [
      [
        { priceAmount: '1200', priceCurrency: 'JPY' },
        { amount: '1200', currency: 'JPY' },
      ],
      [
        { priceAmount: '1.250', priceCurrency: 'KWD' },
        { amount: '1.250', currency: 'KWD' },
      ],
      [
        { priceAmount: '12.500', priceCurrency: 'eur' },
        { amount: '12.50', currency: 'EUR' },
      ],
    ] as const) {
      const res = await t.http
        .put(`/api/resources/${id}`)
        .set(bearer(admin))
        .send({ accessLevel: 'paid', ...price })
        .expect(200);
      assert.deepEqual(res.body.price, shown);
    }
    // PUT changes only the fields sent: one half of the price is paired with the stored other half
    const amountOnly = await t.http.put(`/api/resources/${id}`).set(bearer(admin)).send({ priceAmount: '14.00' });
    assert.equal(amountOnly.status, 200, amountOnly.text);
    assert.deepEqual(amountOnly.body.price, { amount: '14.00', currency: 'EUR' });
    const currencyOnly = await t.http.put(`/api/resources/${id}`).set(bearer(admin)).send({ priceCurrency: 'usd' });
    assert.equal(currencyOnly.status, 200, currencyOnly.text);
    assert.deepEqual(currencyOnly.body.price, { amount: '14.00', currency: 'USD' });
    // ...and the pair must still be a price: 14.00 has no decimals JPY lacks, 14.5 would
    await t.http.put(`/api/resources/${id}`).set(bearer(admin)).send({ priceAmount: '14.5' }).expect(200);
    const jpy = expectProblem(
      await t.http.put(`/api/resources/${id}`).set(bearer(admin)).send({ priceCurrency: 'JPY' }),
      400,
      'validation_failed',
    );
    assert.equal(jpy.errors[0].field, 'priceAmount');
    // at most 12 digits before the point, as the message says
    const long = expectProblem(
      await t.http.put(`/api/resources/${id}`).set(bearer(admin)).send({ priceAmount: '999999999999999' }),
      400,
      'validation_failed',
    );
    assert.match(long.errors[0].message, /at most 12 digits/);
    // a new resource needs both halves
    const half = expectProblem(
      await upload(await fixture('pdf'), 'h.pdf', { accessLevel: 'paid', priceAmount: '5' }),
      400,
      'validation_failed',
    );
    assert.deepEqual(half.errors, [{ field: 'priceCurrency', message: 'is required with priceAmount' }]);
  });

  it('when a resource is deleted, then its row and every file under its prefix are gone, and resource.deleted is emitted', async () => {
    const created = await upload(await fixture('pdf'), 'd.pdf')
      .attach('featuredImage', await fixture('png'), 'c.png')
      .expect(201);
    const id = created.body.id as string;
    await t.http
      .put(`/api/resources/${id}`)
      .set(bearer(admin))
      .attach('file', await fixture('docx'), 'd2.docx')
      .expect(200);
    const prefix = `orgs/${organizationId}/resources/${id}/`;
    assert.equal((await storedKeys(t, prefix)).length, 3);
    await t.http.delete(`/api/resources/${id}`).set(bearer(admin)).expect(204);
    assert.deepEqual(await storedKeys(t, prefix), []);
    assert.equal(
      (await t.container.sql.rows('SELECT 1 FROM resource_versions WHERE resource_id = $1', [id])).length,
      0,
    );
    const events = await t.container.sql.rows<{ type: string }>(
      "SELECT type FROM domain_events WHERE data->>'id' = $1 AND type = 'resource.deleted'",
      [id],
    );
    assert.equal(events.length, 1);
    expectProblem(await t.http.delete(`/api/resources/${id}`).set(bearer(admin)), 404, 'not_found');
    expectProblem(await t.http.get(`/api/resources/${id}/download`).set(bearer(admin)), 404, 'not_found');
  });

  it('when a file is downloaded, then Content-Disposition carries filename*, ETag/304 and ranges work, and a video counts once', async () => {
    const video = await fixture('mp4');
    const created = await upload(video, 'Réunion annuelle – 2026.mp4', {
      status: 'published',
      accessLevel: 'members',
    }).expect(201);
    const id = created.body.id as string;
    const url = `/api/resources/${id}/download`;
    const whole = await download(url, member).expect(200);
    assert.match(
      whole.headers['content-disposition'],
      /^attachment; filename="[^"]+"; filename\*=UTF-8''R%C3%A9union%20annuelle%20%E2%80%93%202026\.mp4$/,
    );
    assert.equal(whole.headers.etag, `"${sha256(video)}"`);
    assert.equal(whole.headers['accept-ranges'], 'bytes');
    assert.ok(whole.headers['last-modified']);
    await t.http.get(url).set(bearer(member)).set('If-None-Match', whole.headers.etag).expect(304);
    const part = await download(url, member).set('Range', 'bytes=100-199').expect(206);
    assert.equal(part.headers['content-range'], `bytes 100-199/${video.length}`);
    assert.ok(Buffer.compare(part.body as Buffer, video.subarray(100, 200)) === 0);
    const outside = await t.http
      .get(url)
      .set(bearer(member))
      .set('Range', `bytes=${video.length + 10}-`);
    expectProblem(outside, 416, 'range_not_satisfiable');
    assert.equal(outside.headers['content-range'], `bytes */${video.length}`);
    // a player: a first request from byte 0, then seeks
    await download(url, member).set('Range', 'bytes=0-').expect(206);
    await download(url, member).set('Range', 'bytes=2000-').expect(206);
    await download(url, member).set('Range', 'bytes=4000-4100').expect(206);
    // HEAD: the GET's headers, no body, not a download (nor a view of the details)
    const head = await t.http.head(url).set(bearer(member)).expect(200);
    assert.equal(head.headers['content-length'], String(video.length));
    assert.equal(head.headers.etag, whole.headers.etag);
    assert.equal(head.headers['content-disposition'], whole.headers['content-disposition']);
    assert.equal(head.text, undefined);
    await t.http.head(`/api/resources/${id}`).set(bearer(member)).expect(200);
    const counts = async () =>
      (
        await t.container.sql.rows<{ downloads: string; events: string }>(
          "SELECT r.download_count AS downloads, (SELECT count(*) FROM resource_usage_events e WHERE e.resource_id = r.id AND e.kind = 'download') AS events FROM resources r WHERE r.id = $1",
          [id],
        )
      )[0]!;
    // a download is recorded once its response has gone out, so the client can be ahead of the count
    await until(async () => Number((await counts()).events) >= 2).catch(() => undefined);
    assert.deepEqual(
      await counts(),
      { downloads: '2', events: '2' },
      'the whole download and the player session starting at 0; 206s past 0, the 304 and the HEAD are not counted',
    );
    const views = await t.container.sql.one<{ count: string }>(
      "SELECT count(*) FROM resource_usage_events WHERE resource_id = $1 AND kind = 'view'",
      [id],
    );
    assert.equal(views?.count, '0', 'a HEAD of the details is not a view');
  });

  it('when the client goes away mid-download, then the stored file is closed and the next download is whole', async () => {
    // 8 MB: more than the socket buffers hold, so the server is still sending when the client leaves
    const big = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(8 * 1024 * 1024)]);
    const created = await upload(big, 'large.pdf', { status: 'published' }).expect(201);
    const id = created.body.id as string;
    const stored = await storageKeyOf(id);
    const file = path.join(t.config.library.localRoot, stored);
    const server = await listen(t);
    try {
      const client = connect(server.port);
      client.socket.write(
        `GET /api/resources/${id}/download HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\n\r\n`,
      );
      await until(async () => client.received().length > 64 * 1024);
      client.socket.destroy();
      await until(async () => !(await openFiles()).includes(file));
      const whole = await download(`/api/resources/${id}/download`).expect(200);
      assert.equal(sha256(whole.body as Buffer), sha256(big));
    } finally {
      await server.close();
    }
  });

  it('when the resource is deleted while its file is being downloaded, then the download ends whole and nothing fails', async () => {
    const big = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(8 * 1024 * 1024)]);
    const id = (await upload(big, 'leaving.pdf', { status: 'published' }).expect(201)).body.id as string;
    const server = await listen(t);
    try {
      const response = await new Promise<IncomingMessage>((resolve, reject) =>
        httpGet(
          `http://127.0.0.1:${server.port}/api/resources/${id}/download`,
          { headers: { authorization: `Bearer ${admin}` } },
          resolve,
        ).on('error', reject),
      );
      assert.equal(response.statusCode, 200);
      // not read yet: the server waits on the socket, the file open, while the resource goes
      await t.http.delete(`/api/resources/${id}`).set(bearer(admin)).expect(204);
      const failuresBefore = failures.length;
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      assert.equal(sha256(Buffer.concat(chunks)), sha256(big), 'the download ended whole');
      // it is recorded once the response has gone out: for a resource gone by then, nowhere
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(failures.slice(failuresBefore), [], 'no request failed after the download');
      const events = await t.container.sql.one<{ count: string }>(
        'SELECT count(*) FROM resource_usage_events WHERE resource_id = $1',
        [id],
      );
      assert.equal(events?.count, '0');
    } finally {
      await server.close();
    }
  });

  it('when the stored file cannot be read, then the response is cut and the server goes on answering', async () => {
    const created = await upload(await fixture('pdf'), 'broken.pdf', { status: 'published' }).expect(201);
    const id = created.body.id as string;
    const stored = await storageKeyOf(id);
    // a directory where the file was: opening it succeeds, the first read fails (EISDIR)
    const file = path.join(t.config.library.localRoot, stored);
    await rm(file);
    await mkdir(file);
    await assert.rejects(download(`/api/resources/${id}/download`), /socket hang up|ECONNRESET|aborted/);
    await t.http.get(`/api/resources/${id}`).set(bearer(admin)).expect(200);
  });

  it('when a reader sees a resource but may not open it, then the download is 403 resource_locked', async () => {
    const created = await upload(await fixture('pdf'), 'premium.pdf', {
      status: 'published',
      accessLevel: 'premium',
    }).expect(201);
    expectProblem(await t.http.get(`/api/resources/${created.body.id}/download`).set(bearer(member)), 404, 'not_found');
    const paid = await upload(await fixture('pdf'), 'paid.pdf', {
      status: 'published',
      accessLevel: 'paid',
      priceAmount: '1',
      priceCurrency: 'EUR',
    }).expect(201);
    const locked = expectProblem(
      await t.http.get(`/api/resources/${paid.body.id}/download`).set(bearer(member)),
      403,
      'resource_locked',
    );
    assert.equal(locked.accessLevel, 'paid');
    await download(`/api/resources/${paid.body.id}/download`, staff).expect(200);
  });

  it('when a finished resumable upload is named by uploadId, then its bytes are inspected, become the file and are taken once', async () => {
    // the resumable side (lib-storage) hands over bytes at a temporary key; this one keeps them in a map
    const finished = new Map<string, CompletedUpload>();
    const uploads: CompletedUploads = {
      async take(actor, uploadId) {
        const upload = finished.get(`${actor.organizationId}:${uploadId}`);
        if (!upload) throw errors.notFound('upload', uploadId);
        finished.delete(`${actor.organizationId}:${uploadId}`);
        return upload;
      },
    };
    const stage = async (id: string, bytes: Buffer, fileName: string) => {
      const tempKey = `tmp/${id}`;
      await t.container.storage.put(tempKey, Readable.from([bytes]));
      const upload: CompletedUpload = {
        id,
        tempKey,
        sizeBytes: bytes.length,
        sha256: sha256(bytes),
        fileName,
        giveBack: async () => void finished.set(`${organizationId}:${id}`, upload),
      };
      finished.set(`${organizationId}:${id}`, upload);
    };
    const { sequelize } = t.db;
    const service = new ResourceService({
      sequelize,
      sql: t.container.sql,
      storage: t.container.storage,
      audit: t.container.services.audit,
      events: t.container.domainEvents,
      clock: t.clock,
      logger: t.container.logger,
      uploads,
    });
    const video = await fixture('webm');
    await stage('resumed1', video, 'talk.webm');
    const created = await service.create(adminActor, { name: 'Resumed', uploadId: 'resumed1' });
    assert.equal(created.format, 'webm');
    assert.equal(created.file.sha256, sha256(video));
    assert.ok(!(await storedKeys(t, 'tmp/')).length, 'the temporary key was promoted');
    await assert.rejects(service.create(adminActor, { name: 'Again', uploadId: 'resumed1' }), { code: 'not_found' });
    await stage('resumed2', await fixture('png'), 'slides.pdf');
    await assert.rejects(service.update(adminActor, created.id, { uploadId: 'resumed2' }), {
      code: 'unsupported_media_type',
    });
    // refused before its rows were written: the upload is given back, its bytes kept (and nothing else)
    assert.ok(finished.has(`${organizationId}:resumed2`), 'a refused upload is given back');
    assert.deepEqual(await storedKeys(t, 'tmp/'), ['tmp/resumed2']);
    await stage('resumed3', await fixture('mp4'), 'talk.mp4');
    const replaced = await service.update(adminActor, created.id, { uploadId: 'resumed3' });
    assert.equal(replaced.currentVersion, 2);
    assert.equal(replaced.format, 'mp4');
  });
});
