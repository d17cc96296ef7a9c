// Bad input and faults on the upload: over the size limit, a truncated body, a client that goes away,
// a second file part, a field over its limit, a NUL character, an unknown category, a price on a free
// resource. Each gets a clear problem+json (when someone is there to read it) and leaves nothing behind:
// no row, no file, no temporary file. A small LIBRARY_MAX_FILE_BYTES keeps the bodies small.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { buildOrganization, buildUser, bearer, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { connect, listen } from '../setup/raw-http.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { fixture } from './fixtures.ts';
import { libraryRowCounts, privateStorage, storedKeys, until } from './library-helpers.ts';

const MAX = 64 * 1024;
const BOUNDARY = 'guildhall-test-boundary';

/** A multipart body by hand, so a test can cut it anywhere. */
function multipart(
  parts: Array<{ name: string; value: string } | { name: string; fileName: string; bytes: Buffer }>,
  close = true,
): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition =
      'fileName' in part
        ? `form-data; name="${part.name}"; filename="${part.fileName}"`
        : `form-data; name="${part.name}"`;
    const type = 'fileName' in part ? '\r\nContent-Type: application/octet-stream' : '';
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`));
    chunks.push('bytes' in part ? part.bytes : Buffer.from(part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

describe('library files: bad input and faults leave nothing behind', () => {
  let t: TestApp;
  let storage: Awaited<ReturnType<typeof privateStorage>>;
  let organizationId: string;
  let admin: string;
  let server: Awaited<ReturnType<typeof listen>>;

  before(async () => {
    storage = await privateStorage();
    t = await startTestApp({ env: { LIBRARY_MAX_FILE_BYTES: String(MAX), ...storage.env } });
    organizationId = (await buildOrganization()).id;
    admin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
    server = await listen(t);
  });
  after(async () => {
    await server.close();
    await t.close();
    await storage.remove();
  });

  const nothingKept = async () => {
    await until(async () => (await storedKeys(t)).length === 0).catch(async () =>
      assert.deepEqual(await storedKeys(t), [], 'files left behind'),
    );
    assert.deepEqual(await libraryRowCounts(t, organizationId), { resources: 0, versions: 0, links: 0 });
  };

  const head = (length: number | 'chunked') =>
    `POST /api/resources HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
    (length === 'chunked' ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${length}\r\n`) +
    '\r\n';

  it('when the file is over LIBRARY_MAX_FILE_BYTES, then 413 is answered before the body ends and nothing is kept', async () => {
    const big = Buffer.concat([await fixture('pdf'), Buffer.alloc(MAX * 4, 0x20)]);
    const body = multipart([
      { name: 'name', value: 'Too big' },
      { name: 'file', fileName: 'big.pdf', bytes: big },
    ]);
    const client = connect(server.port);
    client.socket.write(head(body.length));
    // the first 2 * MAX bytes only: the answer must not wait for the rest
    client.socket.write(body.subarray(0, MAX * 2));
    const res = await client.response(5_000);
    assert.equal(res.status, 413);
    assert.equal(JSON.parse(res.body).code, 'payload_too_large');
    assert.equal(res.headers.connection, 'close');
    client.socket.destroy();
    await nothingKept();
  });

  it('when a chunked body passes the limit, then 413 and nothing is kept', async () => {
    const client = connect(server.port);
    client.socket.write(head('chunked'));
    const body = multipart([
      { name: 'name', value: 'Chunked' },
      { name: 'file', fileName: 'c.pdf', bytes: Buffer.concat([await fixture('pdf'), Buffer.alloc(MAX * 2)]) },
    ]);
    for (let offset = 0; offset < body.length; offset += 16 * 1024) {
      const chunk = body.subarray(offset, offset + 16 * 1024);
      client.socket.write(`${chunk.length.toString(16)}\r\n`);
      client.socket.write(chunk);
      client.socket.write('\r\n');
    }
    const res = await client.response(5_000);
    assert.equal(res.status, 413);
    client.socket.destroy();
    await nothingKept();
  });

  it('when the declared length is over the whole bound, then 413 before a byte is read', async () => {
    const client = connect(server.port);
    client.socket.write(head(MAX * 1000));
    const res = await client.response(3_000);
    assert.equal(res.status, 413);
    client.socket.destroy();
    await nothingKept();
  });

  it('when the multipart body is truncated, then 400 malformed_body and nothing is kept', async () => {
    const body = multipart(
      [
        { name: 'name', value: 'Cut' },
        { name: 'file', fileName: 'cut.pdf', bytes: await fixture('pdf') },
      ],
      false,
    );
    const res = await t.http
      .post('/api/resources')
      .set(bearer(admin))
      .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
      .send(body);
    expectProblem(res, 400, 'malformed_body');
    await nothingKept();
  });

  it('when the client disconnects mid-upload, then the half-written file and the temporary keys are removed', async () => {
    const body = multipart([
      { name: 'name', value: 'Gone' },
      { name: 'featuredImage', fileName: 'c.png', bytes: await fixture('png') },
      { name: 'file', fileName: 'gone.pdf', bytes: Buffer.concat([await fixture('pdf'), Buffer.alloc(MAX / 2)]) },
    ]);
    const client = connect(server.port);
    client.socket.write(head(body.length));
    client.socket.write(body.subarray(0, body.length - 1000));
    await until(async () => (await storedKeys(t)).length > 0); // the parts are being written
    client.socket.destroy();
    await nothingKept();
  });

  it('when a second file part is sent, then 400 names it and nothing is kept', async () => {
    const res = await t.http
      .post('/api/resources')
      .set(bearer(admin))
      .field('name', 'Two')
      .attach('file', await fixture('pdf'), 'a.pdf')
      .attach('file', await fixture('pdf'), 'b.pdf');
    const problem = expectProblem(res, 400, 'validation_failed');
    assert.equal(problem.errors[0].field, 'file');
    await nothingKept();
    const unknown = await t.http
      .post('/api/resources')
      .set(bearer(admin))
      .field('name', 'Odd')
      .attach('file', await fixture('pdf'), 'a.pdf')
      .attach('attachment', await fixture('pdf'), 'b.pdf');
    assert.equal(expectProblem(unknown, 400, 'validation_failed').errors[0].field, 'attachment');
    await nothingKept();
  });

  it('when a field is over its limit, then 400 names the field and nothing is kept', async () => {
    const huge = await t.http
      .post('/api/resources')
      .set(bearer(admin))
      .field('name', 'Long')
      .field('description', 'x'.repeat(30_000))
      .attach('file', await fixture('pdf'), 'a.pdf');
    assert.equal(expectProblem(huge, 400, 'validation_failed').errors[0].field, 'description');
    const long = await t.http
      .post('/api/resources')
      .set(bearer(admin))
      .field('name', 'y'.repeat(201))
      .attach('file', await fixture('pdf'), 'a.pdf');
    assert.equal(expectProblem(long, 400, 'validation_failed').errors[0].field, 'name');
    const missing = await t.http
      .post('/api/resources')
      .set(bearer(admin))
      .attach('file', await fixture('pdf'), 'a.pdf');
    assert.equal(expectProblem(missing, 400, 'validation_failed').errors[0].field, 'name');
    const noFile = await t.http.post('/api/resources').set(bearer(admin)).field('name', 'No file');
    assert.equal(expectProblem(noFile, 400, 'validation_failed').errors[0].field, 'file');
    const level = await t.http
      .post('/api/resources')
      .set(bearer(admin))
      .field('name', 'Level')
      .field('accessLevel', 'secret')
      .attach('file', await fixture('pdf'), 'a.pdf');
    assert.equal(expectProblem(level, 400, 'validation_failed').errors[0].field, 'accessLevel');
    await nothingKept();
  });

  it('when a field or the file name holds a NUL character (PostgreSQL text cannot), then 400 names it and nothing is kept', async () => {
    // the file part first, so its bytes are staged before the field is read
    const named = multipart([
      { name: 'file', fileName: 'a.pdf', bytes: await fixture('pdf') },
      { name: 'name', value: 'Nul\u0000name' },
    ]);
    const field = expectProblem(
      await t.http
        .post('/api/resources')
        .set(bearer(admin))
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(named),
      400,
      'validation_failed',
    );
    assert.deepEqual(
      field.errors.map((e: { field: string }) => e.field),
      ['name'],
    );
    // a NUL in the file name, percent-encoded as RFC 5987 allows (a raw one breaks the part's header: 400 malformed_body)
    const encoded = Buffer.concat([
      multipart([{ name: 'name', value: 'Nul file name' }], false),
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''a%00.pdf\r\nContent-Type: application/pdf\r\n\r\n`,
      ),
      await fixture('pdf'),
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
    const fileName = expectProblem(
      await t.http
        .post('/api/resources')
        .set(bearer(admin))
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(encoded),
      400,
      'validation_failed',
    );
    assert.deepEqual(
      fileName.errors.map((e: { field: string }) => e.field),
      ['file.filename'],
    );
    const raw = multipart([
      { name: 'name', value: 'Raw NUL file name' },
      { name: 'file', fileName: 'a\u0000.pdf', bytes: await fixture('pdf') },
    ]);
    expectProblem(
      await t.http
        .post('/api/resources')
        .set(bearer(admin))
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(raw),
      400,
      'malformed_body',
    );
    await nothingKept();
  });

  it("when a category is unknown, another organization's or archived, then 422 names categoryIds and nothing is kept", async () => {
    const other = (await buildOrganization()).id;
    const [theirs] = await t.container.sql.rows<{ id: string }>(
      "INSERT INTO resource_categories (organization_id, name) VALUES ($1, 'Theirs') RETURNING id",
      [other],
    );
    const [archived] = await t.container.sql.rows<{ id: string }>(
      "INSERT INTO resource_categories (organization_id, name, archived_at) VALUES ($1, 'Old', now()) RETURNING id",
      [organizationId],
    );
    for (const id of [randomUUID(), theirs!.id, archived!.id]) {
      const res = await t.http
        .post('/api/resources')
        .set(bearer(admin))
        .field('name', 'Cat')
        .field('categoryIds', id)
        .attach('file', await fixture('pdf'), 'a.pdf');
      const problem = expectProblem(res, 422, 'unprocessable');
      assert.equal(problem.errors[0].field, 'categoryIds');
      assert.ok(problem.detail.includes(id));
    }
    const malformed = await t.http
      .post('/api/resources')
      .set(bearer(admin))
      .field('name', 'Cat')
      .field('categoryIds', 'not-a-uuid')
      .attach('file', await fixture('pdf'), 'a.pdf');
    assert.equal(expectProblem(malformed, 400, 'validation_failed').errors[0].field, 'categoryIds');
    await nothingKept();
  });

  it('when a price is sent for a free resource or missing for a paid one, then 400 names it and nothing is kept', async () => {
    const priced = await t.http
      .post('/api/resources')
      .set(bearer(admin))
      .field('name', 'Free')
      .field('accessLevel', 'public')
      .field('priceAmount', '5.00')
      .field('priceCurrency', 'EUR')
      .attach('file', await fixture('pdf'), 'a.pdf');
    assert.equal(expectProblem(priced, 400, 'validation_failed').errors[0].field, 'priceAmount');
    const unpriced = await t.http
      .post('/api/resources')
      .set(bearer(admin))
      .field('name', 'Paid')
      .field('accessLevel', 'paid')
      .attach('file', await fixture('pdf'), 'a.pdf');
    assert.deepEqual(
      expectProblem(unpriced, 400, 'validation_failed').errors.map((e: { field: string }) => e.field),
      ['priceAmount', 'priceCurrency'],
    );
    await nothingKept();
  });

  it('when uploadId names no finished resumable upload of the caller, then 404 and nothing is kept', async () => {
    const res = await t.http
      .post('/api/resources')
      .set(bearer(admin))
      .field('name', 'Resumed')
      .field('uploadId', 'abc123');
    expectProblem(res, 404, 'not_found');
    await nothingKept();
  });

  it('when the body is not multipart, then 415', async () => {
    expectProblem(
      await t.http.post('/api/resources').set(bearer(admin)).send({ name: 'json' }),
      415,
      'unsupported_media_type',
    );
  });

  it('when a change is sent as JSON with text that cannot be stored, a blank name or text past its length, then 400 and nothing changes; the lengths count characters', async () => {
    // another organization's resource: the others' "nothing kept" checks count this one's
    const elsewhere = (await buildOrganization()).id;
    const owner = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: elsewhere }));
    const created = await t.http
      .post('/api/resources')
      .set(bearer(owner))
      .field('name', 'Kept as is')
      .attach('file', await fixture('pdf'), 'a.pdf');
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    const put = (body: string) =>
      t.http.put(`/api/resources/${id}`).set(bearer(owner)).set('Content-Type', 'application/json').send(body);
    const refusedField = async (body: string, field: string, message: RegExp) => {
      const problem = expectProblem(await put(body), 400, 'validation_failed');
      assert.equal(problem.errors[0].field, field, body);
      assert.match(problem.errors[0].message, message, body);
    };
    await refusedField('{"name":"c\\u0000d"}', 'name', /NUL/);
    await refusedField('{"description":"x\\ud800"}', 'description', /surrogate/);
    await refusedField('{"tags":["x\\udc00"]}', 'tags[0]', /surrogate/);
    // bytes that are not UTF-8 (supertest would send a Buffer as JSON of its bytes: fetch sends them as they are)
    const notUtf8 = await fetch(`http://127.0.0.1:${server.port}/api/resources/${id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${owner}`, 'Content-Type': 'application/json' },
      body: Buffer.from('{"description":"bad \xff byte"}', 'latin1'),
    });
    assert.equal(notUtf8.status, 400);
    assert.equal(((await notUtf8.json()) as { code: string }).code, 'malformed_body');
    // invisible marks only, as the contract's not-blank pattern says (JSON and multipart alike)
    await refusedField('{"name":"\\u200b\\u200b"}', 'name', /must not be blank/);
    const softHyphen = await t.http.put(`/api/resources/${id}`).set(bearer(owner)).field('name', '\u00ad\u2060');
    assert.match(expectProblem(softHyphen, 400, 'validation_failed').errors[0].message, /must not be blank/);
    const read = async () => (await t.http.get(`/api/resources/${id}`).set(bearer(owner)).expect(200)).body;
    assert.equal((await read()).name, 'Kept as is');
    assert.equal((await read()).description, null);

    // maxLength counts characters, as JSON Schema does: 150 emoji are 150 characters (300 UTF-16 units)
    const emoji = '\u{1F600}';
    assert.equal((await put(JSON.stringify({ name: emoji.repeat(150), tags: [emoji.repeat(30)] }))).status, 200);
    assert.equal((await read()).name, emoji.repeat(150));
    assert.deepEqual((await read()).tags, [emoji.repeat(30)]);
    await refusedField(JSON.stringify({ name: emoji.repeat(201) }), 'name', /at most 200 characters/);
  });
});
