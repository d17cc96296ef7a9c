// The podcast end to end: a client admin asks, the worker writes a script, speaks it with two Flite
// voices and encodes an MP3; readers who may open the source stream it. Test documents are short (a
// few sentences per voice): speech is CPU-heavy.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeToPcm, resolveFfmpegPath } from '../../src/integrations/media/ffmpeg.ts';
import { bearer, buildOrganization, buildUser, tokenFor } from '../factories/index.ts';
import { buildMember } from '../factories/records.ts';
import { addSourceVersion, buildSourceResource, SHORT_REPORT } from '../factories/generation-sources.ts';
import { expectProblem } from '../setup/problem.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';
import { median, medianPitch } from './audio-analysis.ts';
import { binaryBody } from '../setup/body-parsers.ts';

const realFfmpeg = resolveFfmpegPath();

async function waitFor(
  t: TestApp,
  url: string,
  token: string,
  done: (body: any) => boolean,
  timeoutMs = 180_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.http.get(url).set(bearer(token));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (done(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`timed out waiting on ${url}: ${JSON.stringify(res.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
const finished = (body: any) => ['ready', 'failed', 'stale'].includes(body.status);

async function storedKeys(t: TestApp, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of t.container.storage.list(prefix)) keys.push(object.key);
  return keys;
}

describe('podcast generation', () => {
  let t: TestApp;
  let organizationId: string;
  let admin: string;
  let ffmpegDir: string;
  let ffmpegWrapper: string;
  const useFfmpeg = async (working: boolean) => {
    await writeFile(
      ffmpegWrapper,
      working ? `#!/bin/sh\nexec "${realFfmpeg}" "$@"\n` : '#!/bin/sh\necho "encoder unavailable" >&2\nexit 1\n',
    );
    await chmod(ffmpegWrapper, 0o755);
  };

  before(async () => {
    ffmpegDir = await mkdtemp(path.join(os.tmpdir(), 'ffmpeg-wrapper-'));
    ffmpegWrapper = path.join(ffmpegDir, 'ffmpeg');
    await useFfmpeg(true);
    t = await startTestApp({ workers: true, env: { FFMPEG_PATH: ffmpegWrapper, GENERATION_MAX_PAGES: '5' } });
    organizationId = (await buildOrganization()).id;
    admin = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_ADMIN', organizationId }));
  });
  after(async () => {
    await t.close();
    await rm(ffmpegDir, { recursive: true, force: true });
  });

  it('when a client admin generates a podcast, then a two-voice MP3 with a timed transcript is streamed to readers', async () => {
    const { resource } = await buildSourceResource(organizationId);
    const queued = await t.http.post(`/api/resources/${resource.id}/generate-podcast`).set(bearer(admin)).expect(202);
    assert.equal(queued.body.status, 'queued');
    assert.equal(queued.body.kind, 'podcast');
    assert.equal(queued.body.aiGenerated, true);
    assert.equal(queued.body.label, 'AI-generated');
    assert.equal(queued.headers.location, `/api/resources/${resource.id}/podcast`);
    assert.ok(queued.headers['ratelimit-policy']);

    const podcast = await waitFor(t, `/api/resources/${resource.id}/podcast`, admin, finished);
    assert.equal(podcast.status, 'ready', podcast.error);
    assert.equal(podcast.progress, 100);
    assert.equal(podcast.sourceVersion, 1);
    assert.equal(podcast.scriptSource, 'composed');
    assert.deepEqual(
      podcast.voices.map((v: any) => v.voice),
      ['slt', 'rms'],
    );
    assert.equal(podcast.links.audio, `/api/resources/${resource.id}/podcast/audio`);

    // the transcript: both hosts, alternating, in time order, about the document and its figures
    const lines = podcast.transcript as Array<{ speaker: string; voice: string; text: string; startSeconds: number }>;
    assert.ok(lines.length >= 6, JSON.stringify(lines));
    assert.deepEqual([...new Set(lines.map((l) => l.voice))].sort(), ['rms', 'slt']);
    for (let i = 1; i < lines.length; i++) assert.ok(lines[i]!.startSeconds > lines[i - 1]!.startSeconds);
    const script = lines.map((l) => l.text).join(' ');
    assert.match(script, /Membership growth/);
    assert.match(script, /42%/);
    assert.match(script, /\$1\.2 million/);

    // a real MP3: decodes, and its length is the transcript's
    const audio = await t.http
      .get(`/api/resources/${resource.id}/podcast/audio`)
      .set(bearer(admin))
      .buffer(true)
      .parse(binaryBody);
    assert.equal(audio.status, 200);
    assert.equal(audio.headers['content-type'], 'audio/mpeg');
    assert.ok(audio.headers.etag);
    const mp3 = audio.body as Buffer;
    assert.ok(mp3[0] === 0xff || mp3.subarray(0, 3).toString() === 'ID3', 'an MPEG audio frame or ID3 tag first');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'podcast-check-'));
    try {
      await writeFile(path.join(dir, 'p.mp3'), mp3);
      const pcm = await decodeToPcm(realFfmpeg, path.join(dir, 'p.mp3'), 16_000);
      const seconds = pcm.length / 16_000;
      assert.ok(
        Math.abs(seconds - podcast.durationSeconds) < 0.5,
        `decoded ${seconds} s, recorded ${podcast.durationSeconds} s`,
      );
      const words = script.split(/\s+/).length;
      // people and Flite speak roughly 2 to 4 words a second (pauses included)
      assert.ok(seconds > words / 4.5 && seconds < words / 1.2, `${seconds} s for ${words} words`);

      // two voices, measurably apart: median pitch of each host's lines
      const pitches: Record<string, number[]> = { slt: [], rms: [] };
      lines.forEach((line, i) => {
        const end = lines[i + 1]?.startSeconds ?? seconds;
        const pitch = medianPitch(pcm, 16_000, line.startSeconds, end - 0.3);
        if (pitch) pitches[line.voice]!.push(pitch);
      });
      assert.ok(pitches.slt!.length >= 2 && pitches.rms!.length >= 2, JSON.stringify(pitches));
      const slt = median(pitches.slt!);
      const rms = median(pitches.rms!);
      assert.ok(slt > 135 && slt < 220, `slt median pitch ${slt} Hz`);
      assert.ok(rms > 80 && rms < 130, `rms median pitch ${rms} Hz`);
      assert.ok(slt - rms > 35, `voices ${slt} Hz vs ${rms} Hz`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    // streamed with ranges and validators
    const partial = await t.http
      .get(`/api/resources/${resource.id}/podcast/audio`)
      .set(bearer(admin))
      .set('Range', 'bytes=0-99')
      .expect(206);
    assert.equal(partial.headers['content-range'], `bytes 0-99/${mp3.length}`);
    await t.http
      .get(`/api/resources/${resource.id}/podcast/audio`)
      .set(bearer(admin))
      .set('If-None-Match', audio.headers.etag!)
      .expect(304);

    // members who may open the source hear it too; the list shows it
    const reader = await buildUser({ role: 'ROLE_MEMBER', organizationId });
    await buildMember(organizationId, { userId: reader.id, status: 'active' });
    const readerToken = await tokenFor(t, reader);
    const asMember = await t.http.get(`/api/resources/${resource.id}/podcast`).set(bearer(readerToken)).expect(200);
    assert.equal(asMember.body.status, 'ready');
    await t.http.get(`/api/resources/${resource.id}/podcast/audio`).set(bearer(readerToken)).expect(200);
    const list = await t.http
      .get(`/api/resources/${resource.id}/generated-content`)
      .set(bearer(readerToken))
      .expect(200);
    assert.deepEqual(
      list.body.data.map((c: any) => c.kind),
      ['podcast'],
    );

    // a new version makes it stale, still playable, until regenerated
    await addSourceVersion(t, resource, SHORT_REPORT.slice(0, 1));
    const stale = await t.http.get(`/api/resources/${resource.id}/podcast`).set(bearer(admin)).expect(200);
    assert.equal(stale.body.status, 'stale');
    assert.equal(stale.body.sourceVersion, 1);
    await t.http
      .get(`/api/resources/${resource.id}/podcast/audio`)
      .set(bearer(admin))
      .set('Range', 'bytes=0-9')
      .expect(206);
  });

  it('when encoding fails, then the podcast says failed with its error, leaves no file, and a retry succeeds', async () => {
    const { resource } = await buildSourceResource(organizationId, { passages: SHORT_REPORT.slice(1) });
    await useFfmpeg(false);
    try {
      await t.http.post(`/api/resources/${resource.id}/generate-podcast`).set(bearer(admin)).expect(202);
      const failed = await waitFor(t, `/api/resources/${resource.id}/podcast`, admin, finished);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /ffmpeg failed.*encoder unavailable/);
      assert.equal(failed.links.audio, undefined);
      assert.equal(failed.transcript, null);
      await t.http.get(`/api/resources/${resource.id}/podcast/audio`).set(bearer(admin)).expect(404);
    } finally {
      await useFfmpeg(true);
    }
    assert.deepEqual(await storedKeys(t, `orgs/${organizationId}/resources/${resource.id}/generated/`), []);
    assert.deepEqual(
      (await storedKeys(t, 'tmp/')).filter((key) => key.startsWith('tmp/generation-')),
      [],
    );

    const retried = await t.http.post(`/api/resources/${resource.id}/generate-podcast`).set(bearer(admin)).expect(202);
    assert.equal(retried.body.status, 'queued');
    assert.equal(retried.body.error, null);
    const ready = await waitFor(t, `/api/resources/${resource.id}/podcast`, admin, finished);
    assert.equal(ready.status, 'ready', ready.error);
    const keys = await storedKeys(t, `orgs/${organizationId}/resources/${resource.id}/generated/`);
    assert.equal(keys.length, 1);
    assert.match(keys[0]!, /\/generated\/podcast-[0-9a-f-]{36}\.mp3$/);
  });

  it('when someone may not open the source, then they get its podcast as they would get the source: 403 or 404', async () => {
    const { resource } = await buildSourceResource(organizationId, { accessLevel: 'paid' });
    const { resource: draft } = await buildSourceResource(organizationId, { status: 'draft' });
    // an active member sees a paid resource but may not open it without a purchase
    const member = await buildUser({ role: 'ROLE_MEMBER', organizationId });
    await buildMember(organizationId, { userId: member.id, status: 'active', tier: 'member' });
    const token = await tokenFor(t, member);
    for (const url of [
      `/api/resources/${resource.id}/podcast`,
      `/api/resources/${resource.id}/podcast/audio`,
      `/api/resources/${resource.id}/generated-content`,
    ]) {
      expectProblem(await t.http.get(url).set(bearer(token)), 403, 'resource_locked');
    }
    expectProblem(await t.http.get(`/api/resources/${draft.id}/podcast`).set(bearer(token)), 404, 'not_found');
    // only client admins generate: staff and members are refused before anything is queued
    expectProblem(
      await t.http.post(`/api/resources/${resource.id}/generate-podcast`).set(bearer(token)),
      403,
      'forbidden',
    );
    const staff = await tokenFor(t, await buildUser({ role: 'ROLE_CLIENT_USER', organizationId }));
    expectProblem(
      await t.http.post(`/api/resources/${resource.id}/generate-podcast`).set(bearer(staff)),
      403,
      'forbidden',
    );
    // nothing generated yet: a 404 for the admin
    expectProblem(await t.http.get(`/api/resources/${resource.id}/podcast`).set(bearer(admin)), 404, 'not_found');
  });

  it('when the source has too many pages or no extracted text, then generation is refused (422, 409)', async () => {
    const pages = [1, 2, 3, 4, 5].map((pageNumber) => ({
      pageNumber,
      headingPath: null,
      content: `Page ${pageNumber} of the handbook explains one rule in detail.`,
    }));
    const { resource: long } = await buildSourceResource(organizationId, { passages: pages });
    const tooLong = expectProblem(
      await t.http.post(`/api/resources/${long.id}/generate-podcast`).set(bearer(admin)),
      422,
      'source_too_long',
    );
    assert.equal(tooLong.pages, 5);
    assert.equal(tooLong.maxPages, 5);
    expectProblem(
      await t.http.post(`/api/resources/${long.id}/generate-infographic`).set(bearer(admin)),
      422,
      'source_too_long',
    );
    const { resource: empty, version } = await buildSourceResource(organizationId, { passages: [] });
    const refusal = async () =>
      expectProblem(
        await t.http.post(`/api/resources/${empty.id}/generate-podcast`).set(bearer(admin)),
        409,
        'source_not_ingested',
      ).detail as string;
    assert.match(await refusal(), /ingestion has not finished\. Try again/);
    // an ingestion that has ended says why, instead of asking to try again
    const ended = (status: string, lastError: string | null) =>
      t.container.sql.query(
        `INSERT INTO resource_ingestions (organization_id, resource_id, version_id, status, last_error, queued_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, now(), now())
         ON CONFLICT (version_id) DO UPDATE SET status = EXCLUDED.status, last_error = EXCLUDED.last_error`,
        [organizationId, empty.id, version.id, status, lastError],
      );
    await ended('failed', 'Invalid PDF structure');
    const failed = await refusal();
    assert.match(failed, /ingestion failed: Invalid PDF structure/);
    assert.doesNotMatch(failed, /Try again/);
    await ended('no_text', null);
    assert.match(await refusal(), /found none in the current version/);
    const { resource: draft } = await buildSourceResource(organizationId, { passages: [], status: 'draft' });
    const notPublished = expectProblem(
      await t.http.post(`/api/resources/${draft.id}/generate-podcast`).set(bearer(admin)),
      409,
      'source_not_ingested',
    );
    assert.match(notPublished.detail, /a draft is not ingested\. Publish it/);
    // a published resource sent back to draft: its text is withdrawn, and publishing is the remedy
    await ended('withdrawn', null);
    await t.http.put(`/api/resources/${empty.id}`).set(bearer(admin)).send({ status: 'draft' }).expect(200);
    assert.match(await refusal(), /a draft is not ingested\. Publish it/);
  });
});
