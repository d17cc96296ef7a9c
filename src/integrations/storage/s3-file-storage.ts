// S3-compatible object storage (AWS S3, MinIO, R2...) behind the FileStorage interface. Puts stream as
// multipart uploads (lib-storage's Upload: parts of 8 MiB, never the whole file in memory); an object
// appears only when the upload completes, and a failed put aborts the multipart upload, so nothing is
// left at the key. Moves are CopyObject + DeleteObject (S3 has no rename).
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PassThrough, type Readable } from 'node:stream';
import type { LibrarySettings } from '../../config.ts';
import { errors } from '../../shared/errors.ts';
import { assertSafeKey, type ByteRange, type FileStorage, type StoredObject } from './file-storage.ts';

type S3Settings = NonNullable<LibrarySettings['s3']>;

const PART_BYTES = 8 * 1024 * 1024;

const isMissing = (error: unknown) =>
  error instanceof S3ServiceException &&
  (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404);

export class S3FileStorage implements FileStorage {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(settings: S3Settings, client?: S3Client) {
    this.bucket = settings.bucket;
    this.client =
      client ??
      new S3Client({
        region: settings.region,
        endpoint: settings.endpoint,
        forcePathStyle: settings.forcePathStyle,
        credentials:
          settings.accessKeyId && settings.secretAccessKey
            ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
            : undefined,
        // checksums on every request would make each part be read twice; S3 verifies Content-MD5-less parts by their ETag
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
  }

  async put(key: string, body: Readable, options: { contentType?: string } = {}): Promise<{ sizeBytes: number }> {
    assertSafeKey(key);
    let sizeBytes = 0;
    // count the bytes on the way through; an error of the source must fail the upload, so forward it
    const counted = new PassThrough();
    body.on('data', (chunk: Buffer) => (sizeBytes += chunk.length));
    body.on('error', (error) => counted.destroy(error));
    body.pipe(counted);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: counted, ContentType: options.contentType },
      partSize: PART_BYTES,
      queueSize: 2,
      // a failed multipart upload is aborted, so no parts (and no object) remain
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      body.destroy();
      throw error;
    }
    return { sizeBytes };
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    assertSafeKey(key);
    try {
      const result = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      return result.Body as Readable;
    } catch (error) {
      if (isMissing(error)) throw errors.notFound('file', key);
      throw error;
    }
  }

  async stat(key: string): Promise<StoredObject | null> {
    assertSafeKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { key, sizeBytes: Number(head.ContentLength ?? 0), modifiedAt: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /** One CopyObject copies up to 5 GiB, the most LIBRARY_MAX_FILE_BYTES allows. */
  async move(from: string, to: string): Promise<void> {
    assertSafeKey(from);
    assertSafeKey(to);
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: to,
          CopySource: `${this.bucket}/${from.split('/').map(encodeURIComponent).join('/')}`,
        }),
      );
    } catch (error) {
      if (isMissing(error)) throw errors.notFound('file', from);
      throw error;
    }
    await this.delete(from);
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    // S3 answers 204 for a missing key too: deleting is idempotent
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key)
          yield {
            key: object.Key,
            sizeBytes: Number(object.Size ?? 0),
            modifiedAt: object.LastModified ?? new Date(0),
          };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  destroy(): void {
    this.client.destroy();
  }
}
