// The Flite engine's child processes: one process speaks sentence after sentence without dying (it
// used to die with SIGSEGV after 30 to 50, its dead WebAssembly instances never collected), and one
// that dies all the same is replaced, the next sentence spoken by a fresh process.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
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

  const workers = () =>
    readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          return (
            readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1] === String(process.pid) &&
            readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('flite.worker')
          );
        } catch {
          return false;
        }
      });

  it('when one process speaks 120 sentences in a row, then it is the same process at the end', async () => {
    await engine.synthesize('slt', 'Welcome.', path.join(dir, 'w.wav'));
    const [before] = workers();
    for (let i = 0; i < 120; i++) {
      await engine.synthesize(
        i % 2 ? 'slt' : 'rms',
        `Item ${i}: the committee meets on the third Tuesday to review the budget.`,
        path.join(dir, 'n.wav'),
      );
    }
    assert.deepEqual(workers(), [before], 'no restart: the process never died');
  });

  it('when the speech process dies, then the next sentence is spoken by a restarted process', async () => {
    const [first] = workers();
    assert.ok(first, 'a Flite process is running');
    process.kill(Number(first), 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await engine.synthesize('rms', 'Thanks for listening.', path.join(dir, 'b.wav'));
    assert.ok(durationOf(parseWav(await readFile(path.join(dir, 'b.wav')))) > 0.5);
    const [second] = workers();
    assert.ok(second && second !== first, 'a new process');
  });
});
