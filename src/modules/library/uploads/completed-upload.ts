// A finished resumable upload handed to the resource service: its bytes sit at a temporary storage key.
import type { Actor } from '../../../shared/access/actor.ts';

export interface CompletedUpload {
  id: string;
  /** tmp/... key holding the bytes; the taker moves or deletes it. */
  tempKey: string;
  sizeBytes: number;
  sha256: string;
  fileName: string;
  /** Puts the upload back, untaken, its bytes where they are: the write that took it failed before using them. */
  giveBack(): Promise<void>;
}

export interface CompletedUploads {
  /** The actor's finished upload (404 when unknown, another tenant's or not finished); it can be taken once. */
  take(actor: Actor, uploadId: string): Promise<CompletedUpload>;
}
