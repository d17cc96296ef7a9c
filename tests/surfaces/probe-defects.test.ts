// What a black-box probe of the running service found (issue 22), each case failing before its fix:
// integers beyond a column's range, ids that are not UUIDs on the streamed routes, lone UTF-16
// surrogates, tus creation with upload, tus refusals outside problem+json and undeclared statuses;
// and (later probes) names, titles and questions of spaces only; JSON bodies nested thousands deep,
// numbers JSON.parse cannot hold exactly, bytes that are not UTF-8; 401s without a challenge.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const TUS = { 'Tus-Resumable': '1.0.0' };
const filename = (name: string) => `filename ${Buffer.from(name).toString('base64')}`;

describe('defects found by the outside probe', () => {
  let t: TestApp;
  let admin: string;
  let member: string;

  before(async () => {
    t = await startTestApp({
      env: { LIBRARY_MAX_FILE_BYTES: String(64 * 1024), LIBRARY_UPLOAD_CORS_ORIGINS: 'https://portal.example.org' },
    });
    const org = await buildOrganization();
    admin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: org.id }));
    member = await tokenFor(t, await buildUser({ role: 'ROLE_MEMBER', organizationId: org.id }));
  });
  after(() => t.close());

  const fieldsOf = (body: Record<string, any>) => body.errors.map((e: { field: string }) => e.field);

  describe('integers beyond the column', () => {
    it('when a range filter exceeds int32, then 400 names it (members may read the list too)', async () => {
      const capacity = expectProblem(
        await t.http.get('/api/events?capacity[gt]=3000000000').set(bearer(member)),
        400,
        'invalid_filter',
      );
      assert.deepEqual([...new Set(fieldsOf(capacity))], ['capacity[gt]']);
      const between = await t.http.get('/api/courses?durationMinutes[between]=0..3000000000').set(bearer(member));
      assert.deepEqual(fieldsOf(expectProblem(between, 400, 'invalid_filter')), ['durationMinutes[between]']);
      // the boundary itself is a value the column holds
      await t.http.get('/api/events?capacity[lte]=2147483647').set(bearer(member)).expect(200);
    });

    it('when a CSV export fails before its first byte, then it answers problem+json like the JSON list', async () => {
      const res = await t.http
        .get('/api/courses?durationMinutes[between]=0..3000000000')
        .set(bearer(admin))
        .set('Accept', 'text/csv');
      expectProblem(res, 400, 'invalid_filter');
      assert.equal(res.headers['content-disposition'], undefined);
    });

    it("when the database refuses the export's query before the first row, then 500 problem+json and no attachment", async () => {
      await t.db.sequelize.query('ALTER TABLE courses RENAME TO courses_away');
      try {
        const res = await t.http.get('/api/courses').set(bearer(admin)).set('Accept', 'text/csv');
        expectProblem(res, 500, 'internal_error');
        assert.equal(res.headers['content-disposition'], undefined);
      } finally {
        await t.db.sequelize.query('ALTER TABLE courses_away RENAME TO courses');
      }
    });

    it('when a decimal filter is beyond any number the column holds, then 400 instead of a database error', async () => {
      const price = expectProblem(
        await t.http.get('/api/courses?price[gt]=1e300').set(bearer(member)),
        400,
        'invalid_filter',
      );
      assert.deepEqual(fieldsOf(price), ['price[gt]']);
    });
  });

  describe('ids on the streamed routes', () => {
    for (const path of ['/api/resources/abc', '/api/resources/%00', '/api/resources/categories/1/icon']) {
      it(`when PUT ${path} names no UUID, then 400 like GET and DELETE on the same path`, async () => {
        const res = await t.http.put(path).set(bearer(admin)).attach('file', Buffer.from('x'), 'a.txt');
        const problem = expectProblem(res, 400, 'validation_failed');
        assert.ok(fieldsOf(problem).length > 0);
      });
    }

    it('when DELETE /api/uploads names an id that is not a UUID (or not even UTF-8), then 400 names it', async () => {
      const notUuid = await t.http.delete('/api/uploads/abc').set(bearer(admin)).set(TUS);
      assert.deepEqual(fieldsOf(expectProblem(notUuid, 400, 'validation_failed')), ['uploadId']);
      const notUtf8 = await t.http.delete('/api/uploads/%E0%A4%A').set(bearer(admin)).set(TUS);
      assert.deepEqual(fieldsOf(expectProblem(notUtf8, 400, 'validation_failed')), ['path']);
    });

    it('when any other path is not valid percent-encoding, then it is the same 400 problem, the API’s or not (the portal’s: exposure.test.ts)', async () => {
      for (const path of ['/api/members/%ZZ', '/errors/%ZZ', '/pages/%ZZ']) {
        const res = await t.http.get(path).set(bearer(admin));
        assert.equal(res.type, 'application/problem+json', path);
        assert.deepEqual(res.body.errors, [{ field: 'path', message: 'must be valid percent-encoded UTF-8' }], path);
        assert.equal(res.status, 400, path);
      }
    });
  });

  describe('lone UTF-16 surrogates', () => {
    const json = (method: 'post' | 'put' | 'patch', path: string, body: string) =>
      t.http[method](path).set(bearer(admin)).set('Content-Type', 'application/json').send(body);

    it('when a create or an update holds a lone surrogate, then both refuse it with 400 naming the field and nothing changes', async () => {
      const created = expectProblem(
        await json('post', '/api/members', '{"firstName":"Ann \\ud800","lastName":"L","email":"s1@example.test"}'),
        400,
        'validation_failed',
      );
      assert.deepEqual(fieldsOf(created), ['firstName']);
      assert.match(created.errors[0].message, /surrogate/);
      const ok = await json(
        'post',
        '/api/members',
        '{"firstName":"Ann","lastName":"L","email":"s2@example.test"}',
      ).expect(201);
      const updated = await json(
        'put',
        `/api/members/${ok.body.id}`,
        '{"firstName":"Ann \\udfff x","lastName":"L","email":"s2@example.test"}',
      );
      assert.deepEqual(fieldsOf(expectProblem(updated, 400, 'validation_failed')), ['firstName']);
      const stored = await t.http.get(`/api/members/${ok.body.id}`).set(bearer(admin)).expect(200);
      assert.equal(stored.body.firstName, 'Ann');
    });

    it('when a surrogate pair (an emoji, escaped or not) is sent, then it is stored as sent', async () => {
      const res = await json(
        'post',
        '/api/members',
        '{"firstName":"Ann \\ud83d\\ude00 😀","lastName":"L","email":"s3@example.test"}',
      ).expect(201);
      assert.equal(res.body.firstName, 'Ann 😀 😀');
    });
  });

  describe('tus conventions', () => {
    it('when the first bytes come with the creation (creation-with-upload), then the upload is created and holds them', async () => {
      const whole = Buffer.from('%PDF-1.4 all of it');
      const finished = await t.http
        .post('/api/uploads')
        .set(bearer(admin))
        .set({
          ...TUS,
          'Upload-Length': String(whole.length),
          'Upload-Metadata': filename('w.pdf'),
          'Content-Type': 'application/offset+octet-stream',
        })
        .send(whole);
      assert.equal(finished.status, 201, finished.text);
      assert.equal(finished.headers['upload-offset'], String(whole.length));
      const done = await t.http.head(finished.headers.location!).set(bearer(admin)).set(TUS).expect(200);
      assert.equal(done.headers['upload-offset'], String(whole.length));
      const bytes = Buffer.from('%PDF-1.4 first bytes');
      const res = await t.http
        .post('/api/uploads')
        .set(bearer(admin))
        .set({
          ...TUS,
          'Upload-Length': String(bytes.length * 2),
          'Upload-Metadata': filename('a.pdf'),
          'Content-Type': 'application/offset+octet-stream',
        })
        .send(bytes);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.match(res.headers.location ?? '', /^\/api\/uploads\/[0-9a-f-]{36}$/);
      assert.equal(res.headers['upload-offset'], String(bytes.length));
      const head = await t.http.head(res.headers.location!).set(bearer(admin)).set(TUS).expect(200);
      assert.equal(head.headers['upload-offset'], String(bytes.length));
    });

    it('when Tus-Resumable is missing, then HEAD, PATCH and DELETE answer 412 problem+json', async () => {
      const created = await t.http
        .post('/api/uploads')
        .set(bearer(admin))
        .set({ ...TUS, 'Upload-Length': '10', 'Upload-Metadata': filename('b.pdf') })
        .expect(201);
      const location = created.headers.location!;
      const patch = await t.http
        .patch(location)
        .set(bearer(admin))
        .set({ 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' })
        .send(Buffer.from('12345'));
      expectProblem(patch, 412, 'tus_version_unsupported');
      expectProblem(await t.http.delete(location).set(bearer(admin)), 412, 'tus_version_unsupported');
      const head = await t.http.head(location).set(bearer(admin));
      assert.equal(head.status, 412);
      assert.match(head.headers['content-type'] ?? '', /^application\/problem\+json/);
      assert.equal(head.headers['tus-version'], '1.0.0');
    });

    it('when a browser calls /api/uploads, then only an origin LIBRARY_UPLOAD_CORS_ORIGINS lists is allowed', async () => {
      const elsewhere = await t.http.options('/api/uploads').set('Origin', 'https://elsewhere.example');
      assert.equal(elsewhere.headers['access-control-allow-origin'], undefined);
      const portal = await t.http.options('/api/uploads').set('Origin', 'https://portal.example.org');
      assert.equal(portal.headers['access-control-allow-origin'], 'https://portal.example.org');
      const json = await t.http
        .get('/api/members')
        .set(bearer(admin))
        .set('Origin', 'https://portal.example.org')
        .expect(200);
      assert.equal(json.headers['access-control-allow-origin'], undefined, 'the JSON API sends none');
    });

    it('when POST /api/resources names an upload that does not exist, then 404 problem+json (declared)', async () => {
      const res = await t.http.post('/api/resources').set(bearer(admin)).field('name', 'x').field('uploadId', 'nope');
      expectProblem(res, 404, 'not_found');
    });
  });

  describe('JSON bodies the API cannot hold as sent', () => {
    const json = (method: 'post' | 'put', path: string, body: string | Buffer) =>
      t.http[method](path).set(bearer(admin)).set('Content-Type', 'application/json').send(body);
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const member = (email: string, customFields: string) =>
      `{"firstName":"A","lastName":"B","email":"${email}","customFields":${customFields}}`;

    it('when a body nests deeper than 32 levels, then create and update refuse it with 400 naming where, and nothing changes', async () => {
      // the body is level 1, customFields 2, x 3: the 33rd level is x's 30th nested array
      const where = [`customFields.x${'[0]'.repeat(30)}`];
      const created = expectProblem(
        await json('post', '/api/members', member('d5@example.test', `{"x":${nested(5000)}}`)),
        400,
        'validation_failed',
      );
      assert.deepEqual(fieldsOf(created), where);
      assert.match(created.errors[0].message, /deeper than 32 levels/);
      const ok = await json('post', '/api/members', member('d6@example.test', `{"x":${nested(30)}}`)).expect(201);
      const updated = await json(
        'put',
        `/api/members/${ok.body.id}`,
        member('d6@example.test', `{"x":${nested(6000)}}`),
      );
      assert.deepEqual(fieldsOf(expectProblem(updated, 400, 'validation_failed')), where);
      const stored = await t.http.get(`/api/members/${ok.body.id}`).set(bearer(admin)).expect(200);
      assert.equal(JSON.stringify(stored.body.customFields), `{"x":${nested(30)}}`);
    });

    it('when a number is beyond what JSON.parse holds exactly, then 400 naming it instead of a changed value', async () => {
      for (const [literal, field] of [
        ['{"id":12345678901234567890}', 'customFields.id'],
        ['{"n":1e400}', 'customFields.n'],
        ['{"a":[1,{"m":-1e400}]}', 'customFields.a[1].m'],
        ['{"big":-9007199254740993}', 'customFields.big'],
      ]) {
        const res = await json('post', '/api/members', member('n1@example.test', literal));
        const problem = expectProblem(res, 400, 'validation_failed');
        assert.deepEqual(fieldsOf(problem), [field], literal);
        assert.match(problem.errors[0].message, /send it as a string/, literal);
      }
      // the largest safe integers, fractions and exponents are stored as sent
      const fine =
        '{"max":9007199254740991,"min":-9007199254740991,"pi":3.14,"avogadro":6.02e23,"id":"12345678901234567890"}';
      const res = await json('post', '/api/members', member('n2@example.test', fine)).expect(201);
      assert.deepEqual(res.body.customFields, JSON.parse(fine));
    });

    it('when a JSON body is not valid UTF-8, then 400 malformed_body instead of storing U+FFFD', async () => {
      const bytes = Buffer.concat([
        Buffer.from('{"firstName":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('","lastName":"B","email":"u8@example.test"}'),
      ]);
      // sent as they are (superagent would write a Buffer as JSON)
      const res = await json('post', '/api/members', bytes).serialize((raw) => raw);
      assert.equal(expectProblem(res, 400, 'malformed_body').detail, 'The request body is not valid UTF-8');
      const listed = await t.http.get('/api/members?email=u8@example.test').set(bearer(admin)).expect(200);
      assert.equal(listed.body.data.length, 0);
    });
  });

  describe('401 challenges', () => {
    it('when the Bearer credential is spaced as RFC 6750 allows, then it is read; when more follows it, then 401', async () => {
      await t.http.get('/api/members').set('Authorization', `bearer   ${admin}`).expect(200);
      const trailing = await t.http.get('/api/members').set('Authorization', `Bearer ${admin} junk`);
      expectProblem(trailing, 401, 'unauthenticated');
      assert.equal(trailing.headers['www-authenticate'], 'Bearer realm="Guildhall", error="invalid_token"');
    });

    it('when the JSON API answers 401, then WWW-Authenticate names the Bearer scheme, and invalid_token when one was refused', async () => {
      const missing = await t.http.get('/api/members');
      expectProblem(missing, 401, 'unauthenticated');
      assert.equal(missing.headers['www-authenticate'], 'Bearer realm="Guildhall"');
      const refused = await t.http.get('/api/members').set('Authorization', 'Bearer not-a-credential');
      expectProblem(refused, 401, 'unauthenticated');
      assert.equal(refused.headers['www-authenticate'], 'Bearer realm="Guildhall", error="invalid_token"');
      const basic = await t.http.get('/api/members').set('Authorization', 'Basic dXNlcjpwYXNz');
      expectProblem(basic, 401, 'unauthenticated');
      assert.equal(basic.headers['www-authenticate'], 'Bearer realm="Guildhall"');
      const login = await t.http
        .post('/api/auth/login')
        .send({ email: 'nobody@example.test', password: 'wrong-password' });
      assert.equal(login.status, 401);
      assert.equal(login.headers['www-authenticate'], 'Bearer realm="Guildhall"');
    });
  });

  describe('text that is only spaces', () => {
    const blank = (res: { body: Record<string, any> }) =>
      expectProblem(res as never, 400, 'validation_failed').errors.map((e: { field: string; message: string }) => [
        e.field,
        e.message,
      ]);

    it('when a member, an event or a course is named with spaces or invisible marks only, then 400 "must not be blank" and nothing is stored', async () => {
      const members = await t.http
        .post('/api/members')
        .set(bearer(admin))
        .send({ firstName: '  ', lastName: '\u200b\u00ad', email: 'blank@example.org' });
      assert.deepEqual(blank(members), [
        ['firstName', 'must not be blank'],
        ['lastName', 'must not be blank'],
      ]);
      const event = await t.http
        .post('/api/events')
        .set(bearer(admin))
        .send({ title: '\t\u2060', startsAt: '2027-01-01T10:00:00Z', endsAt: '2027-01-01T12:00:00Z' });
      assert.deepEqual(blank(event), [['title', 'must not be blank']]);
      const course = await t.http.post('/api/courses').set(bearer(admin)).send({ title: '   ' });
      assert.deepEqual(blank(course), [['title', 'must not be blank']]);
      const listed = await t.http.get('/api/members?email=blank@example.org').set(bearer(admin)).expect(200);
      assert.equal(listed.body.data.length, 0);
    });

    it('when the chat is asked a question of spaces only, then 400 instead of an answer to nothing', async () => {
      const res = await t.http.post('/api/resources/chat').set(bearer(member)).send({ query: '   ' });
      assert.deepEqual(blank(res), [['query', 'must not be blank']]);
    });
  });
});
