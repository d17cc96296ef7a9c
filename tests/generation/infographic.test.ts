// The infographic: a visual summary of a document's figures, takeaways and steps, as SVG and PNG.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { addSourceVersion, buildSourceResource, RICH_REPORT } from '../factories/generation-sources.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { binaryBody } from '../setup/body-parsers.ts';

async function waitFor(t: TestApp, url: string, token: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.http.get(url).set(bearer(token)).expect(200);
    if (['ready', 'failed', 'stale'].includes(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(res.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('infographic generation', () => {
  let t: TestApp;
  let organizationId: string;
  let admin: string;

  before(async () => {
    t = await startTestApp({ workers: true });
    organizationId = (await buildOrganization()).id;
    admin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
  });
  after(() => t.close());

  it("when a client admin generates an infographic, then its SVG and PNG show the document's figures, steps and chart, with alt text", async () => {
    const { resource } = await buildSourceResource(organizationId, {
      name: 'Annual Report 2025',
      passages: RICH_REPORT,
    });
    const queued = await t.http
      .post(`/api/resources/${resource.id}/generate-infographic`)
      .set(bearer(admin))
      .expect(202);
    assert.equal(queued.body.kind, 'infographic');
    assert.equal(queued.headers.location, `/api/resources/${resource.id}/infographic`);
    await waitFor(t, `/api/resources/${resource.id}/infographic`, admin);
    const { body: infographic } = await t.http
      .get(`/api/resources/${resource.id}/infographic`)
      .set(bearer(admin))
      .expect(200);
    assert.equal(infographic.status, 'ready', infographic.error);
    assert.equal(infographic.progress, 100);
    assert.equal(infographic.aiGenerated, true);
    assert.equal(infographic.links.svg, `/api/resources/${resource.id}/infographic.svg`);
    assert.equal(infographic.links.png, `/api/resources/${resource.id}/infographic.png`);
    assert.match(infographic.altText, /Annual Report 2025/);
    assert.match(infographic.altText, /42%/);
    assert.match(infographic.altText, /\$1\.2 million/);
    assert.match(infographic.altText, /bar chart compares/);
    assert.equal(infographic.transcript, undefined);

    const svg = await t.http
      .get(`/api/resources/${resource.id}/infographic.svg`)
      .set(bearer(admin))
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    assert.equal(svg.headers['content-type'], 'image/svg+xml');
    assert.match(svg.headers['content-security-policy'] ?? '', /sandbox/);
    const text = (svg.body as Buffer).toString('utf8');
    assert.match(text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    for (const figure of ['1,250', '42%', '$1.2 million', '45%', '30%', '25%'])
      assert.ok(text.includes(`>${figure}<`), `the SVG shows ${figure}`);
    assert.match(text, /Sign in to the member portal/);
    assert.match(text, /Pay the annual fee online/);
    // document text is escaped, never markup
    assert.ok(text.includes('&lt;shared&gt; venues &amp; volunteers') || !text.includes('<shared>'));
    assert.ok(!text.includes('<shared>'));

    const png = await t.http
      .get(`/api/resources/${resource.id}/infographic.png`)
      .set(bearer(admin))
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    assert.equal(png.headers['content-type'], 'image/png');
    const image = sharp(png.body as Buffer);
    const meta = await image.metadata();
    assert.equal(meta.format, 'png');
    assert.equal(meta.width, 1200);
    assert.ok((meta.height ?? 0) > 600);
    const stats = await image.stats();
    // not blank: dark text and coloured bands on white
    assert.ok(
      stats.channels.some((channel) => channel.stdev > 20),
      JSON.stringify(stats.channels.map((c) => c.stdev)),
    );
    assert.ok(stats.channels[0]!.min < 60);
    await t.http
      .get(`/api/resources/${resource.id}/infographic.png`)
      .set(bearer(admin))
      .set('If-None-Match', png.headers.etag!)
      .expect(304);
    // byte ranges, as the contract declares them (Accept-Ranges: bytes)
    for (const [format, whole] of [
      ['svg', Buffer.from(text)],
      ['png', png.body as Buffer],
    ] as const) {
      const part = await t.http
        .get(`/api/resources/${resource.id}/infographic.${format}`)
        .set(bearer(admin))
        .set('Range', 'bytes=0-9')
        .buffer(true)
        .parse(binaryBody)
        .expect(206);
      assert.equal(part.headers['content-range'], `bytes 0-9/${whole.length}`);
      assert.deepEqual(part.body, whole.subarray(0, 10));
    }
  });

  it('when the source gets a new version, then the infographic is stale until regenerated from the new text', async () => {
    const { resource } = await buildSourceResource(organizationId, { passages: RICH_REPORT });
    await t.http.post(`/api/resources/${resource.id}/generate-infographic`).set(bearer(admin)).expect(202);
    const first = await waitFor(t, `/api/resources/${resource.id}/infographic`, admin);
    assert.equal(first.status, 'ready');
    const firstKey = (await t.container.models.GeneratedContent.findByPk(first.id))!.storageKeys.svg!;

    await addSourceVersion(t, resource, [
      {
        pageNumber: 1,
        headingPath: 'Update > Results',
        content: 'Attendance rose to 87% at the spring conference. Revenue reached $2.4 million overall.',
      },
    ]);
    const stale = await t.http.get(`/api/resources/${resource.id}/generated-content`).set(bearer(admin)).expect(200);
    assert.deepEqual(
      stale.body.data.map((c: any) => [c.kind, c.status, c.sourceVersion]),
      [['infographic', 'stale', 1]],
    );

    const again = await t.http
      .post(`/api/resources/${resource.id}/generate-infographic`)
      .set(bearer(admin))
      .expect(202);
    assert.equal(again.body.id, first.id);
    const second = await waitFor(t, `/api/resources/${resource.id}/infographic`, admin);
    assert.equal(second.status, 'ready');
    assert.equal(second.sourceVersion, 2);
    const svg = await t.http
      .get(`/api/resources/${resource.id}/infographic.svg`)
      .set(bearer(admin))
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    assert.match((svg.body as Buffer).toString(), />87%</);
    assert.match((svg.body as Buffer).toString(), />\$2\.4 million</);
    // the first output's files are gone once nothing names them
    assert.equal(await t.container.storage.stat(firstKey), null);
  });

  it('when a member may not open the source, then the infographic and its files answer like the source', async () => {
    const { resource } = await buildSourceResource(organizationId, { accessLevel: 'members', passages: RICH_REPORT });
    await t.http.post(`/api/resources/${resource.id}/generate-infographic`).set(bearer(admin)).expect(202);
    await waitFor(t, `/api/resources/${resource.id}/infographic`, admin);
    // a user of the organization without an active membership sees members-only resources not at all
    const visitor = await tokenFor(t, await buildUser({ role: 'ROLE_MEMBER', organizationId }));
    for (const url of [
      `/api/resources/${resource.id}/infographic`,
      `/api/resources/${resource.id}/infographic.svg`,
      `/api/resources/${resource.id}/infographic.png`,
    ]) {
      expectProblem(await t.http.get(url).set(bearer(visitor)), 404, 'not_found');
    }
    expectProblem(
      await t.http.post(`/api/resources/${resource.id}/generate-infographic`).set(bearer(visitor)),
      403,
      'forbidden',
    );
  });
});
