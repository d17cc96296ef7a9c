// Text to speech behind one small interface, so a better engine (a neural voice, a hosted API) can
// replace Flite without touching the podcast pipeline. An engine speaks one sentence per call into a
// WAV file (16-bit PCM, mono); the caller joins the files.

export interface VoiceInfo {
  /** The engine's name for the voice (`slt`). */
  id: string;
  description: string;
  /** Rough median pitch, for choosing two voices that are clearly apart. */
  pitchHz: number;
}

export interface VoiceEngine {
  readonly name: string;
  readonly voices: readonly VoiceInfo[];
  /** Sentences it can speak at once (calls beyond that wait their turn). */
  readonly concurrency: number;
  /** Speaks `text` (one sentence, already normalised) with `voice` into the WAV file `outFile`. */
  synthesize(voice: string, text: string, outFile: string): Promise<void>;
  /** Stops any helper process; the next call starts it again. */
  close(): Promise<void>;
}
