// The Flite engine's child processes: input long enough to abort Flite kills only its process; the
// engine reports that sentence as failed and the next one is spoken by a fresh process.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { durationOf, parseWav } from '../../src/integrations/media/wav.ts';
import { FliteVoiceEngine } from '../../src/integrations/speech/flite.engine.ts';
import { createLogger } from '../../src/shared/logger.ts';

describe('the Flite voice engine', () => {
  let dir: string;
  let engine: FliteVoiceEngine;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'flite-'));
    engine = new FliteVoiceEngine({ logger: createLogger('silent'), processes: 1 });
  });
  after(async () => {
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('when a sentence is spoken, then it is a 16-bit mono WAV of plausible length', async () => {
    await engine.synthesize('slt', 'Membership grew by forty two percent this year.', path.join(dir, 'a.wav'));
    const audio = parseWav(await readFile(path.join(dir, 'a.wav')));
    assert.equal(audio.channels, 1);
    assert.equal(audio.sampleRate, 16_000);
    assert.ok(durationOf(audio) > 1.5 && durationOf(audio) < 6, String(durationOf(audio)));
    await assert.rejects(engine.synthesize('nobody', 'Hello.', path.join(dir, 'x.wav')), /unknown Flite voice/);
  });

  it('when input aborts Flite, then that call fails, and the next sentence is spoken by a restarted process', async () => {
    const tooLong = Array.from({ length: 400 }, (_, i) => `word${i % 7 ? '' : ','}`).join(' ');
    await assert.rejects(engine.synthesize('rms', tooLong, path.join(dir, 'long.wav')), /speech process exited/);
    await engine.synthesize('rms', 'Thanks for listening.', path.join(dir, 'b.wav'));
    assert.ok(durationOf(parseWav(await readFile(path.join(dir, 'b.wav')))) > 0.5);
  });
});
