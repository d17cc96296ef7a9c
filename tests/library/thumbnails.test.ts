// Thumbnails: a resource event enqueues the job (in the event's transaction), a worker renders the
// thumbnail (PNG with sharp, a PDF's first page, an MP4's poster frame, the featured image first), and
// readers who see the resource get it; fixtures are generated offline (sharp, pdfkit, ffmpeg lavfi).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { Resource } from '../../src/modules/library/resource.model.ts';
import { ResourceVersion } from '../../src/modules/library/resource-version.model.ts';
import type { ThumbnailRenderer } from '../../src/modules/library/thumbnails/thumbnail.renderer.ts';
import { ThumbnailService } from '../../src/modules/library/thumbnails/thumbnail.service.ts';
import type { ResourceFormat, ResourceType } from '../../src/modules/library/resource.model.ts';
import { systemActor } from '../../src/shared/access/actor.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { binaryBody } from '../setup/body-parsers.ts';
import { until } from './library-helpers.ts';

const run = promisify(execFile);

async function pngFixture(width = 1200, height = 800): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .png()
    .toBuffer();
}

async function pdfFixture(): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4' });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => doc.on('end', resolve));
  doc.fontSize(40).text('Page one', 100, 100);
  doc.addPage().fontSize(40).text('Page two', 100, 100);
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

async function mp4Fixture(): Promise<Buffer> {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'mp4-'));
  const out = path.join(dir, 'clip.mp4');
  await run(ffmpeg.path, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=duration=2:size=640x360:rate=10',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    out,
  ]);
  const bytes = await fs.readFile(out);
  await fs.rm(dir, { recursive: true, force: true });
  return bytes;
}

const TYPES: Record<string, ResourceType> = { png: 'image', pdf: 'document', mp4: 'video', docx: 'document' };
const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

describe('thumbnails', () => {
  let t: TestApp;
  let orgId: string;
  let token: string;

  before(async () => {
    t = await startTestApp({ workers: true });
    orgId = (await buildOrganization()).id;
    token = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: orgId }));
  });
  after(async () => {
    await t.close();
  });

  /** A resource with its file stored under its prefix, as the resource service leaves it; published with its event. */
  async function publishResource(format: ResourceFormat, bytes: Buffer, featured?: Buffer): Promise<Resource> {
    const resource = await Resource.create({
      organizationId: orgId,
      name: `A ${format}`,
      type: TYPES[format]!,
      format,
      accessLevel: 'members',
    });
    const prefix = `orgs/${orgId}/resources/${resource.id}/`;
    const storageKey = `${prefix}v1/file.${format}`;
    await t.container.storage.put(storageKey, Readable.from([bytes]));
    await ResourceVersion.create({
      organizationId: orgId,
      resourceId: resource.id,
      version: 1,
      storageKey,
      fileName: `file.${format}`,
      contentType: CONTENT_TYPES[format]!,
      format,
      sizeBytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    if (featured) {
      await t.container.storage.put(`${prefix}featured`, Readable.from([featured]));
      await resource.update({ featuredImageKey: `${prefix}featured` });
    }
    await t.db.sequelize.transaction(async (transaction) => {
      await resource.update({ status: 'published', publishedAt: new Date() }, { transaction });
      await t.container.domainEvents.publish(
        systemActor(orgId),
        'resource.published',
        { id: resource.id },
        transaction,
      );
    });
    return resource;
  }

  async function waitForThumbnail(resourceId: string): Promise<string> {
    for (let i = 0; i < 200; i += 1) {
      const row = await Resource.findByPk(resourceId);
      if (row?.thumbnailKey) return row.thumbnailKey;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    throw new Error('no thumbnail was made');
  }

  async function fetchThumbnail(resourceId: string) {
    const res = await t.http
      .get(`/api/resources/${resourceId}/thumbnail`)
      .set(bearer(token))
      .buffer(true)
      .parse(binaryBody);
    return res;
  }

  it('when a PNG resource is published, then a job makes a WebP thumbnail 480 px wide and readers get it inline', async () => {
    const resource = await publishResource('png', await pngFixture());
    const key = await waitForThumbnail(resource.id);
    assert.ok(key.startsWith(`orgs/${orgId}/resources/${resource.id}/thumbnails/`));
    const res = await fetchThumbnail(resource.id);
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'image/webp');
    assert.match(res.headers['content-disposition'] ?? '', /^inline/);
    assert.ok(res.headers['x-ratelimit-limit']);
    const meta = await sharp(res.body as Buffer).metadata();
    assert.equal(meta.format, 'webp');
    assert.equal(meta.width, 480);
    assert.equal(meta.height, 320);

    const again = await t.http
      .get(`/api/resources/${resource.id}/thumbnail`)
      .set(bearer(token))
      .set('If-None-Match', res.headers.etag!);
    assert.equal(again.status, 304);

    // a metadata-only change (resource.updated) finds the thumbnail made from the same file already
    assert.equal(await t.container.services.thumbnails.generate(resource.id), 'unchanged');
    assert.equal((await Resource.findByPk(resource.id))!.thumbnailKey, key);

    // deleting the resource leaves nothing of it on disk, no empty thumbnails/ folder either
    await t.http.delete(`/api/resources/${resource.id}`).set(bearer(token)).expect(204);
    const folder = path.join(t.config.library.localRoot, `orgs/${orgId}/resources/${resource.id}`);
    await assert.rejects(fs.stat(folder), { code: 'ENOENT' });
  });

  it('when a PDF resource is published, then its first page becomes the thumbnail', async () => {
    const resource = await publishResource('pdf', await pdfFixture());
    await waitForThumbnail(resource.id);
    const res = await fetchThumbnail(resource.id);
    assert.equal(res.status, 200);
    const meta = await sharp(res.body as Buffer).metadata();
    assert.equal(meta.width, 480);
    // A4 is portrait: taller than wide
    assert.ok(meta.height! > 600, `height ${meta.height}`);
    const stats = await sharp(res.body as Buffer).stats();
    assert.ok(stats.channels[0]!.min < 100, 'the page has dark text on it');
  });

  it('when an MP4 resource is published, then a poster frame becomes the thumbnail', async () => {
    const resource = await publishResource('mp4', await mp4Fixture());
    await waitForThumbnail(resource.id);
    const res = await fetchThumbnail(resource.id);
    assert.equal(res.status, 200);
    const meta = await sharp(res.body as Buffer).metadata();
    assert.equal(meta.width, 480);
    assert.equal(meta.height, 270);
  });

  it('when a resource has a featured image, then the thumbnail is made from it and the image itself is served', async () => {
    const featured = await pngFixture(600, 600);
    const resource = await publishResource('pdf', await pdfFixture(), featured);
    await waitForThumbnail(resource.id);
    const meta = await sharp((await fetchThumbnail(resource.id)).body as Buffer).metadata();
    assert.equal(meta.height, 480); // square, like the featured image, not an A4 page

    const image = await t.http
      .get(`/api/resources/${resource.id}/featured-image`)
      .set(bearer(token))
      .buffer(true)
      .parse(binaryBody);
    assert.equal(image.status, 200);
    assert.equal(image.headers['content-type'], 'image/png');
    assert.deepEqual(image.body, featured);
  });

  it('when a format has no renderer or the resource has no featured image, then 404', async () => {
    const resource = await publishResource('docx', Buffer.from('PK\u0003\u0004 not really a docx'));
    // the job runs and decides there is nothing to render
    assert.equal(await t.container.services.thumbnails.generate(resource.id), 'unsupported');
    assert.equal((await t.http.get(`/api/resources/${resource.id}/thumbnail`).set(bearer(token))).status, 404);
    assert.equal((await t.http.get(`/api/resources/${resource.id}/featured-image`).set(bearer(token))).status, 404);
  });

  it('when another organization asks, then the thumbnail and the featured image are 404', async () => {
    const resource = await publishResource('png', await pngFixture(), await pngFixture(100, 100));
    await waitForThumbnail(resource.id);
    const other = await tokenFor(
      t,
      await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId: (await buildOrganization()).id }),
    );
    assert.equal((await t.http.get(`/api/resources/${resource.id}/thumbnail`).set(bearer(other))).status, 404);
    assert.equal((await t.http.get(`/api/resources/${resource.id}/featured-image`).set(bearer(other))).status, 404);
  });

  it('when the resource changes while its thumbnail renders, then the older render neither replaces the newer thumbnail nor stays in storage', async () => {
    const resource = await publishResource('png', await pngFixture());
    const current = await waitForThumbnail(resource.id);
    const newer = `orgs/${orgId}/resources/${resource.id}/thumbnails/newer.webp`;
    await t.container.storage.put(newer, Readable.from([Buffer.from('made by another worker')]));
    const featured = `orgs/${orgId}/resources/${resource.id}/featured.png`;
    await t.container.storage.put(featured, Readable.from([await pngFixture(640, 320)]));
    await Resource.update({ featuredImageKey: featured }, { where: { id: resource.id } });
    // the render of the featured image is slow; meanwhile another job stores a thumbnail for a newer state
    const slow = new ThumbnailService({
      sql: t.container.sql,
      storage: t.container.storage,
      logger: t.container.logger,
      renderer: {
        render: async () => {
          await Resource.update({ thumbnailKey: newer }, { where: { id: resource.id } });
          return sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
            .webp()
            .toBuffer();
        },
      } as unknown as ThumbnailRenderer,
    });
    assert.equal(await slow.generate(resource.id), 'unchanged');
    assert.equal((await Resource.findByPk(resource.id))!.thumbnailKey, newer, 'the newer thumbnail stays');
    const left: string[] = [];
    for await (const file of t.container.storage.list(`orgs/${orgId}/resources/${resource.id}/thumbnails/`))
      left.push(file.key);
    assert.deepEqual(
      left.sort(),
      [current, newer].sort(),
      "the older render was removed; the earlier thumbnail is the newer job's to remove",
    );
  });

  it('when a new version replaces the file, then the thumbnail is remade and the old one removed', async () => {
    const resource = await publishResource('png', await pngFixture());
    const first = await waitForThumbnail(resource.id);
    const bytes = await pngFixture(960, 960);
    const storageKey = `orgs/${orgId}/resources/${resource.id}/v2/file.png`;
    await t.container.storage.put(storageKey, Readable.from([bytes]));
    await t.db.sequelize.transaction(async (transaction) => {
      await ResourceVersion.create(
        {
          organizationId: orgId,
          resourceId: resource.id,
          version: 2,
          storageKey,
          fileName: 'file.png',
          contentType: 'image/png',
          format: 'png',
          sizeBytes: bytes.length,
          sha256: 'b'.repeat(64),
        },
        { transaction },
      );
      await resource.update({ currentVersion: 2 }, { transaction });
      await t.container.domainEvents.publish(
        systemActor(orgId),
        'resource.version_added',
        { id: resource.id },
        transaction,
      );
    });
    let second = first;
    for (let i = 0; i < 200 && second === first; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      second = (await Resource.findByPk(resource.id))!.thumbnailKey!;
    }
    assert.notEqual(second, first);
    // the old file goes once the new key is stored: on a busy machine a moment after the key is read
    await until(async () => (await t.container.storage.stat(first)) === null, 10_000).catch(() => undefined);
    assert.equal(await t.container.storage.stat(first), null, 'the old thumbnail is removed');
    assert.equal((await sharp((await fetchThumbnail(resource.id)).body as Buffer).metadata()).height, 480);
  });
});
