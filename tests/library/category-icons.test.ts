// A category's uploaded icon image: resized PNG, sanitised SVG served sandboxed, refusals that keep
// nothing, replacement and removal of the file, who may read it (members, visitors of the public
// catalogue for active categories) and who may not (members changing it, other organizations).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import type { Response } from 'supertest';
import { bearer, buildUser, tokenFor } from '../factories/index.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { storedKeys, activeMemberToken } from './library-helpers.ts';
import { binaryBody } from '../setup/body-parsers.ts';

const image = (width: number, height: number, format: 'png' | 'jpeg') =>
  sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } })
    [format]()
    .toBuffer();

describe('category icon images', () => {
  let t: TestApp;
  let admin: Record<string, string>;
  let member: Record<string, string>;
  let stranger: Record<string, string>;
  let organizationId: string;
  let slug: string;
  let categoryId: string;

  const upload = (content: Buffer, fileName: string, headers = admin, id = categoryId) =>
    t.http.put(`/api/resources/categories/${id}/icon`).set(headers).attach('file', content, fileName);
  const fetchIcon = (headers: Record<string, string>, id = categoryId) =>
    t.http.get(`/api/resources/categories/${id}/icon`).set(headers).buffer(true).parse(binaryBody);
  const iconProblem = (headers: Record<string, string>, id = categoryId) =>
    t.http.get(`/api/resources/categories/${id}/icon`).set(headers);
  const iconKeys = () => storedKeys(t, `orgs/${organizationId}/categories/`);

  before(async () => {
    t = await startTestApp();
    const adminUser = await buildUser({ role: 'ROLE_CLIENT_ADMIN' });
    organizationId = adminUser.organizationId!;
    admin = bearer(await tokenFor(t, adminUser));
    member = bearer(await activeMemberToken(t, organizationId));
    stranger = bearer(await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN' })));
    slug = (await t.container.sql.one<{ slug: string }>('SELECT slug FROM organizations WHERE id = $1', [
      organizationId,
    ]))!.slug;
    categoryId = (
      await t.http
        .post('/api/resources/categories')
        .set(admin)
        .send({ name: 'Governance', icon: 'briefcase' })
        .expect(201)
    ).body.id;
  });
  after(() => t.close());

  it('when a PNG larger than 256 px is uploaded, then it is kept resized to fit 256 x 256, the category points at it and members get it', async () => {
    const res = await upload(await image(1024, 512, 'png'), 'logo.png').expect(200);
    assert.equal(res.body.icon, 'briefcase', 'the named icon stays');
    assert.equal(res.body.iconImageUrl, `/api/resources/categories/${categoryId}/icon`);
    const served = await fetchIcon(member).expect(200);
    assert.equal(served.headers['content-type'], 'image/png');
    assert.ok(served.headers.etag);
    const meta = await sharp(served.body as Buffer).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 256, 128]);
    await fetchIcon(member).set('If-None-Match', served.headers.etag!).expect(304);
    const listed = (await t.http.get('/api/resources/categories').set(member).expect(200)).body.data as Array<{
      id: string;
      iconImageUrl: string | null;
    }>;
    assert.equal(listed.find((c) => c.id === categoryId)?.iconImageUrl, `/api/resources/categories/${categoryId}/icon`);
    assert.equal((await iconKeys()).length, 1);
    const audit = await t.container.sql.rows<{ action: string }>(
      'SELECT action FROM audit_log WHERE target_id = $1 ORDER BY id',
      [categoryId],
    );
    assert.ok(audit.some((a) => a.action === 'resource_category.icon_changed'));
  });

  it('when a JPEG replaces it, then the new image is served as PNG and the old file is gone', async () => {
    const before = await iconKeys();
    await upload(await image(64, 64, 'jpeg'), 'photo.jpg').expect(200);
    const after = await iconKeys();
    assert.equal(after.length, 1);
    assert.notDeepEqual(after, before);
    const meta = await sharp((await fetchIcon(admin).expect(200)).body as Buffer).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 64, 64], 'small images are not enlarged');
  });

  it('when an SVG with a script is uploaded, then it is served sanitised, sandboxed and nosniff', async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><script>alert(1)</script><circle cx="5" cy="5" r="4" onclick="alert(2)"/></svg>';
    await upload(Buffer.from(svg), 'mark.svg').expect(200);
    const served = await fetchIcon(member).expect(200);
    assert.equal(served.headers['content-type'], 'image/svg+xml');
    assert.match(served.headers['content-security-policy']!, /sandbox/);
    assert.equal(served.headers['x-content-type-options'], 'nosniff');
    const text = (served.body as Buffer).toString('utf8');
    assert.match(text, /<circle/);
    assert.doesNotMatch(text, /script|onclick/);
    assert.equal((await iconKeys()).length, 1);
  });

  it('when the upload is not an image, lies about its type or is too large, then 415 or 413 and nothing changes', async () => {
    const kept = await iconKeys();
    const beforeUrl = (await t.http.get('/api/resources/categories').set(admin).expect(200)).body.data[0].iconImageUrl;
    const text = expectProblem(
      await upload(Buffer.from('just some text, no image'), 'notes.txt'),
      415,
      'unsupported_media_type',
    );
    assert.ok(text.detectedType);
    expectProblem(await upload(await image(10, 10, 'png'), 'icon.jpg'), 415, 'unsupported_media_type');
    const big = Buffer.concat([await image(10, 10, 'png'), Buffer.alloc(2 * 1024 * 1024 + 10)]);
    expectProblem(await upload(big, 'huge.png'), 413, 'payload_too_large');
    expectProblem(
      await t.http.put(`/api/resources/categories/${categoryId}/icon`).set(admin).send({ file: 'x' }),
      415,
      'unsupported_media_type',
    );
    assert.deepEqual(await iconKeys(), kept);
    assert.deepEqual(await storedKeys(t, 'tmp/'), [], 'no temporary upload is left');
    assert.equal(
      (await t.http.get('/api/resources/categories').set(admin).expect(200)).body.data[0].iconImageUrl,
      beforeUrl,
    );
  });

  it('when a member uploads or removes it, then 403; another organization gets 404 for every icon path', async () => {
    expectProblem(await upload(await image(10, 10, 'png'), 'x.png', member), 403, 'forbidden');
    expectProblem(await t.http.delete(`/api/resources/categories/${categoryId}/icon`).set(member), 403, 'forbidden');
    expectProblem(await upload(await image(10, 10, 'png'), 'x.png', stranger), 404, 'not_found');
    expectProblem(await iconProblem(stranger), 404, 'not_found');
    expectProblem(await t.http.delete(`/api/resources/categories/${categoryId}/icon`).set(stranger), 404, 'not_found');
  });

  it('when the public catalogue lists an active category, then its icon is served there without a credential; archived, it is not', async () => {
    const listed = (await t.http.get(`/api/public/organizations/${slug}/categories`).expect(200)).body.data as Array<{
      id: string;
      iconImageUrl: string;
    }>;
    const url = listed.find((c) => c.id === categoryId)!.iconImageUrl;
    assert.equal(url, `/api/public/organizations/${slug}/categories/${categoryId}/icon`);
    const served: Response = await t.http
      .get(`/api/public/organizations/${slug}/categories/${categoryId}/icon`)
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    assert.equal(served.headers['content-type'], 'image/svg+xml');
    await t.http.post(`/api/resources/categories/${categoryId}/archive`).set(admin).expect(200);
    expectProblem(await t.http.get(url), 404, 'not_found');
    expectProblem(await iconProblem(member), 404, 'not_found');
    await fetchIcon(admin).expect(200); // client admins still see archived categories
    await t.http.post(`/api/resources/categories/${categoryId}/unarchive`).set(admin).expect(200);
  });

  it('when the icon image is removed, then its file goes, the category has no image, and a second removal is 404', async () => {
    await t.http.delete(`/api/resources/categories/${categoryId}/icon`).set(admin).expect(204);
    assert.deepEqual(await iconKeys(), []);
    const category = (await t.http.get('/api/resources/categories').set(admin).expect(200)).body.data.find(
      (c: { id: string }) => c.id === categoryId,
    );
    assert.equal(category.iconImageUrl, null);
    assert.equal(category.icon, 'briefcase');
    expectProblem(await iconProblem(member), 404, 'not_found');
    expectProblem(await t.http.delete(`/api/resources/categories/${categoryId}/icon`).set(admin), 404, 'not_found');
  });
});
