// ffmpeg, run as a child process: the binary shipped in @ffmpeg-installer/ffmpeg unless FFMPEG_PATH
// (config.ai.ffmpegPath) names another (Debian's ffmpeg in the Docker image, a newer build).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function resolveFfmpegPath(configured?: string): string {
  if (configured) return configured;
  return (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
}

/** Runs ffmpeg to completion; rejects with the end of its error output when it fails or cannot start. */
export function runFfmpeg(
  ffmpegPath: string,
  args: readonly string[],
  options: { timeoutMs?: number; input?: Buffer } = {},
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath, ['-hide_banner', '-nostdin', '-loglevel', 'error', ...args], {
      stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => void (err = (err + chunk.toString()).slice(-4000)));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`ffmpeg could not be started (${ffmpegPath}): ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(out));
      else
        reject(
          new Error(
            `ffmpeg failed (${signal ?? `exit code ${code}`}): ${err.trim().split('\n').slice(-3).join(' ') || 'no output'}`,
          ),
        );
    });
    if (options.input) child.stdin!.end(options.input);
  });
}

/** WAV (any PCM) to a mono MP3 at 64 kbit/s, resampled to 24 kHz (an MPEG-2 rate every player handles). */
export async function encodeMp3(ffmpegPath: string, wavFile: string, mp3File: string): Promise<void> {
  await runFfmpeg(ffmpegPath, [
    '-y',
    '-i',
    wavFile,
    '-af',
    'aresample=24000',
    '-c:a',
    'libmp3lame',
    '-b:a',
    '64k',
    '-ac',
    '1',
    '-f',
    'mp3',
    mp3File,
  ]);
}

/** Any audio file decoded to 16-bit mono PCM at `sampleRate` (checks and analysis). */
export async function decodeToPcm(ffmpegPath: string, file: string, sampleRate = 16_000): Promise<Int16Array> {
  const raw = await runFfmpeg(ffmpegPath, [
    '-i',
    file,
    '-f',
    's16le',
    '-acodec',
    'pcm_s16le',
    '-ac',
    '1',
    '-ar',
    String(sampleRate),
    'pipe:1',
  ]);
  return new Int16Array(raw.buffer, raw.byteOffset, Math.floor(raw.length / 2));
}
