// supertest body parsers for responses its defaults would not keep whole: files, images, audio and
// spreadsheets as a Buffer; event streams and CSV as text. Use with `.buffer(true).parse(...)`.
import type { Response } from 'superagent';

type Done<T> = (error: Error | null, body: T) => void;

/** The response body as one Buffer. */
export function binaryBody(res: Response, done: Done<Buffer>): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

/** The response body as UTF-8 text (SSE, CSV), whatever its content type. */
export function textBody(res: Response, done: Done<string>): void {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (text += chunk));
  res.on('end', () => done(null, text));
}
