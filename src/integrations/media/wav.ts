// Minimal RIFF/WAVE reading and writing for 16-bit PCM, enough to join a speech engine's sentence files
// with pauses between them and know each sentence's exact start time.

export interface PcmAudio {
  sampleRate: number;
  channels: number;
  /** 16-bit little-endian samples. */
  data: Buffer;
}

export function parseWav(buffer: Buffer): PcmAudio {
  if (buffer.toString('ascii', 0, 4) !== 'RIFF' || buffer.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error('not a WAV file');
  let offset = 12;
  let format: { sampleRate: number; channels: number; bits: number; code: number } | undefined;
  while (offset + 8 <= buffer.length) {
    const id = buffer.toString('ascii', offset, offset + 4);
    const size = buffer.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      format = {
        code: buffer.readUInt16LE(body),
        channels: buffer.readUInt16LE(body + 2),
        sampleRate: buffer.readUInt32LE(body + 4),
        bits: buffer.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!format || format.code !== 1 || format.bits !== 16) throw new Error('only 16-bit PCM WAV is supported');
      // some writers leave the size at 0 or too large when they stream: take what is there
      const end = size > 0 && body + size <= buffer.length ? body + size : buffer.length;
      return { sampleRate: format.sampleRate, channels: format.channels, data: buffer.subarray(body, end) };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAV file without a data chunk');
}

export function wavHeader(dataBytes: number, sampleRate: number, channels = 1): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

export const durationOf = (audio: PcmAudio): number => audio.data.length / (2 * audio.channels * audio.sampleRate);

export const silence = (seconds: number, sampleRate: number, channels = 1): Buffer =>
  Buffer.alloc(Math.round(seconds * sampleRate) * 2 * channels);
