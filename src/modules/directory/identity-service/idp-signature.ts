// The identity service signs each webhook the way WorkOS does: `WorkOS-Signature: t=<unix ms>,
// v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. The MAC is over the exact bytes received, compared
// in constant time, and the timestamp must lie within a window on either side of our clock: an old
// delivery captured and replayed, or one stamped in the future (a skewed or forged clock), is refused
// like a wrong signature (401), so the sender retries with a fresh stamp.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../../shared/errors.ts';

export const SIGNATURE_HEADER = 'WorkOS-Signature';
/** How far the signature's timestamp may be from our clock, in the past or the future. */
export const SIGNATURE_TOLERANCE_MS = 5 * 60_000;

const refused = (detail: string) => new AppError('unauthenticated', detail);

export interface SignatureCheck {
  header: string | undefined;
  rawBody: Buffer;
  secret: string;
  now: Date;
  toleranceMs?: number;
}

/** `t=…, v1=…` into its timestamp and its v1 signatures (a sender rotating secrets may send several). */
export function parseSignatureHeader(header: string): { timestamp: string; signatures: string[] } | null {
  let timestamp: string | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't' && /^\d{1,16}$/.test(value)) timestamp = value;
    else if (key === 'v1') signatures.push(value);
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
}

export function computeSignature(secret: string, timestamp: number | string, rawBody: Buffer): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
}

/** Throws 401 `unauthenticated` unless the header signs these bytes with this secret, recently. */
export function verifyIdpSignature(check: SignatureCheck): void {
  if (!check.header) throw refused(`The ${SIGNATURE_HEADER} header is missing`);
  const parsed = parseSignatureHeader(check.header);
  if (!parsed) throw refused(`The ${SIGNATURE_HEADER} header is not of the form t=<timestamp>, v1=<signature>`);
  const tolerance = check.toleranceMs ?? SIGNATURE_TOLERANCE_MS;
  const skew = check.now.getTime() - Number(parsed.timestamp);
  // the MAC is over the timestamp as sent (its digits), so it is kept as text
  if (skew > tolerance) throw refused(`The ${SIGNATURE_HEADER} timestamp is older than ${tolerance / 60_000} minutes`);
  if (-skew > tolerance)
    throw refused(`The ${SIGNATURE_HEADER} timestamp is more than ${tolerance / 60_000} minutes in the future`);
  const expected = computeSignature(check.secret, parsed.timestamp, check.rawBody);
  const matches = parsed.signatures.some((hex) => {
    if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== expected.length * 2) return false;
    return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
  });
  if (!matches) throw refused(`The ${SIGNATURE_HEADER} signature does not match the body`);
}
