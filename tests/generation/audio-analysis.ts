// Measuring decoded audio in tests: median pitch by autocorrelation (what tells Flite's slt, ~167 Hz,
// from rms, ~104 Hz) over the voiced frames of a stretch of 16 kHz mono PCM.

export function medianPitch(
  pcm: Int16Array,
  sampleRate: number,
  fromSeconds: number,
  toSeconds: number,
): number | null {
  const frame = Math.round(0.04 * sampleRate);
  const hop = Math.round(0.02 * sampleRate);
  const minLag = Math.floor(sampleRate / 320);
  const maxLag = Math.ceil(sampleRate / 65);
  const start = Math.max(0, Math.floor(fromSeconds * sampleRate));
  const end = Math.min(pcm.length, Math.floor(toSeconds * sampleRate));
  const pitches: number[] = [];
  for (let offset = start; offset + frame + maxLag < end; offset += hop) {
    let energy = 0;
    for (let i = 0; i < frame; i++) energy += pcm[offset + i]! ** 2;
    if (energy / frame < 500 ** 2) continue; // silence and quiet consonants
    let bestLag = 0;
    let best = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let sum = 0;
      let norm = 0;
      for (let i = 0; i < frame; i++) {
        sum += pcm[offset + i]! * pcm[offset + i + lag]!;
        norm += pcm[offset + i + lag]! ** 2;
      }
      const r = sum / Math.sqrt(energy * norm || 1);
      if (r > best) {
        best = r;
        bestLag = lag;
      }
    }
    if (best > 0.6 && bestLag) pitches.push(sampleRate / bestLag);
  }
  if (pitches.length < 5) return null;
  pitches.sort((a, b) => a - b);
  return pitches[Math.floor(pitches.length / 2)]!;
}

export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
