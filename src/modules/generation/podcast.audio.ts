// Script -> speech -> one MP3. Each line is normalised for speech and cut into short sentences; each
// sentence is spoken into its own WAV (one call per sentence, see flite.engine.ts); the PCM is joined
// here with short pauses (so every line's start time is exact), then ffmpeg encodes the MP3.
import { writeFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { encodeMp3 } from '../../integrations/media/ffmpeg.ts';
import { durationOf, parseWav, silence, wavHeader } from '../../integrations/media/wav.ts';
import { normalizeForSpeech, splitSentences } from '../../integrations/speech/speech-text.ts';
import type { VoiceEngine } from '../../integrations/speech/voice-engine.ts';
import type { TranscriptLine } from './generated-content.model.ts';
import { HOSTS, type ScriptLine } from './podcast-script.ts';

const PAUSE_BETWEEN_SENTENCES = 0.25;
const PAUSE_BETWEEN_TURNS = 0.5;

export interface PodcastAudio {
  mp3File: string;
  transcript: TranscriptLine[];
  durationSeconds: number;
}

export async function renderPodcast(
  script: readonly ScriptLine[],
  deps: {
    engine: VoiceEngine;
    ffmpegPath: string;
    workDir: string;
    onProgress?: (done: number, total: number) => Promise<void>;
  },
): Promise<PodcastAudio> {
  const turns = script
    .map((line) => ({ line, sentences: splitSentences(normalizeForSpeech(line.text)) }))
    .filter((t) => t.sentences.length);
  const total = turns.reduce((sum, t) => sum + t.sentences.length, 0);
  if (!total) throw new Error('the script has nothing to say');
  // speak every sentence (as many at once as the engine can), then join them in order
  const files = turns.flatMap((turn, t) =>
    turn.sentences.map((sentence, i) => ({
      voice: HOSTS[turn.line.speaker].voice,
      sentence,
      file: path.join(deps.workDir, `t${t}-s${i}.wav`),
    })),
  );
  let done = 0;
  let next = 0;
  const speak = async () => {
    while (next < files.length) {
      const item = files[next++]!;
      await deps.engine.synthesize(item.voice, item.sentence, item.file);
      await deps.onProgress?.(++done, total);
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.engine.concurrency, files.length) }, speak));

  const chunks: Buffer[] = [];
  const transcript: TranscriptLine[] = [];
  let sampleRate = 0;
  let seconds = 0;
  for (const [turnIndex, { line, sentences }] of turns.entries()) {
    const host = HOSTS[line.speaker];
    if (turnIndex > 0) {
      chunks.push(silence(PAUSE_BETWEEN_TURNS, sampleRate));
      seconds += PAUSE_BETWEEN_TURNS;
    }
    transcript.push({
      speaker: host.name,
      voice: host.voice,
      text: line.text,
      startSeconds: Math.round(seconds * 100) / 100,
    });
    for (const i of sentences.keys()) {
      const audio = parseWav(await readFile(path.join(deps.workDir, `t${turnIndex}-s${i}.wav`)));
      if (audio.channels !== 1) throw new Error('the speech engine must produce mono audio');
      if (!sampleRate) sampleRate = audio.sampleRate;
      if (audio.sampleRate !== sampleRate)
        throw new Error('the speech engine changed its sample rate between sentences');
      if (i > 0) {
        chunks.push(silence(PAUSE_BETWEEN_SENTENCES, sampleRate));
        seconds += PAUSE_BETWEEN_SENTENCES;
      }
      chunks.push(audio.data);
      seconds += durationOf(audio);
    }
  }
  const pcm = Buffer.concat(chunks);
  const wavFile = path.join(deps.workDir, 'podcast.wav');
  await writeFile(wavFile, Buffer.concat([wavHeader(pcm.length, sampleRate), pcm]));
  const mp3File = path.join(deps.workDir, 'podcast.mp3');
  await encodeMp3(deps.ffmpegPath, wavFile, mp3File);
  return { mp3File, transcript, durationSeconds: Math.round(seconds * 100) / 100 };
}
