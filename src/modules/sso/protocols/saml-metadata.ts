// What Guildhall knows of an IdP before any login: its settings as saved (checked, completed from its
// SAML metadata), its signing certificates (parsed, normalised to PEM, checked for validity). Nothing
// here trusts what it reads: metadata only fills settings an administrator saves, and assertions are
// verified by node-saml at login.
import { X509Certificate } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { errors, type FieldError } from '../../../shared/errors.ts';
import type { ProtocolContext, SamlSettings } from './sso-protocol.ts';

const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const METADATA_TIMEOUT_MS = 10_000;
const METADATA_MAX_BYTES = 1024 * 1024;
const DAY_MS = 86_400_000;
const EXPIRY_WARNING_DAYS = 30;

/** Why a metadata document or certificate cannot be used; it becomes a validation error on its field. */
export class MetadataError extends Error {}

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  /** The signing certificates, PEM, in document order (several during a key rollover). */
  certificates: string[];
}

/**
 * Fetches metadata from an address the SSRF guard already allowed. Redirects are refused: following one
 * would reach an address the guard never saw.
 */
export async function fetchMetadata(url: URL): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(METADATA_TIMEOUT_MS) });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    throw new MetadataError(timedOut ? 'did not answer within 10 s' : 'could not be fetched (or redirected)');
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new MetadataError(`answered HTTP ${response.status}`);
  }
  return readCapped(response);
}

async function readCapped(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > METADATA_MAX_BYTES) {
      await reader.cancel();
      throw new MetadataError('is larger than 1 MB');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  // One element or many, always an array: metadata may carry several of each.
  isArray: (name) => ['EntityDescriptor', 'IDPSSODescriptor', 'SingleSignOnService', 'KeyDescriptor'].includes(name),
  htmlEntities: false,
});

type Node = Record<string, unknown>;
const nodes = (value: unknown): Node[] => (Array.isArray(value) ? value : value ? [value] : []) as Node[];
const textOf = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'object' && value ? String((value as Node)['#text'] ?? '') : '';

/** Reads an EntityDescriptor (or the one IdP of an EntitiesDescriptor) into the settings it yields. */
export function parseIdpMetadata(xml: string): IdpMetadata {
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch {
    throw new MetadataError('is not well-formed XML');
  }
  const entities = [...nodes(doc.EntityDescriptor), ...nodes((doc.EntitiesDescriptor as Node)?.EntityDescriptor)];
  const idps = entities.filter((entity) => nodes(entity.IDPSSODescriptor).length > 0);
  if (idps.length !== 1) {
    throw new MetadataError(idps.length ? 'describes several identity providers' : 'describes no identity provider');
  }
  const entity = idps[0];
  const descriptor = nodes(entity.IDPSSODescriptor)[0];
  const services = nodes(descriptor.SingleSignOnService);
  // node-saml sends the AuthnRequest as a redirect, so the Redirect endpoint is the one to use.
  const service =
    services.find((s) => s['@Binding'] === REDIRECT_BINDING) ?? services.find((s) => s['@Binding'] === POST_BINDING);
  const certificates = nodes(descriptor.KeyDescriptor)
    // A KeyDescriptor without `use` serves both signing and encryption.
    .filter((key) => key['@use'] === undefined || key['@use'] === 'signing')
    .flatMap((key) => nodes((key.KeyInfo as Node)?.X509Data))
    .flatMap((data) => nodes(data.X509Certificate).map(textOf))
    .map((body) => body.replace(/\s+/g, ''))
    .filter((body) => body !== '');
  return {
    entityId: String(entity['@entityID'] ?? '').trim(),
    ssoUrl: String(service?.['@Location'] ?? '').trim(),
    certificates: certificates.map((body) => toPem(Buffer.from(body, 'base64'))),
  };
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

function toPem(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/**
 * Parses one PEM certificate, several (a rollover bundle), or a bare base64 body as IdPs' admin pages
 * show it. Throws MetadataError when any part is not an X.509 certificate.
 */
export function parseCertificates(input: string): X509Certificate[] {
  const blocks = [...input.matchAll(PEM_BLOCK)].map((match) => match[1]);
  const bodies = blocks.length > 0 ? blocks : [input];
  return bodies.map((body) => {
    const compact = body.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]+=*$/.test(compact)) throw new MetadataError('is not a PEM or base64 X.509 certificate');
    try {
      return new X509Certificate(Buffer.from(compact, 'base64'));
    } catch {
      throw new MetadataError('is not a valid X.509 certificate');
    }
  });
}

export const certificatePem = (certificate: X509Certificate): string => toPem(certificate.raw);

export const validFrom = (certificate: X509Certificate): Date => new Date(certificate.validFrom);
export const validTo = (certificate: X509Certificate): Date => new Date(certificate.validTo);

/** Why a certificate cannot be trusted at `now` (expired, not yet valid), or null. */
export function validityProblem(certificate: X509Certificate, now: Date): string | null {
  const day = (date: Date) => date.toISOString().slice(0, 10);
  if (now < validFrom(certificate)) return `is not valid before ${day(validFrom(certificate))}`;
  if (now >= validTo(certificate)) return `expired on ${day(validTo(certificate))}`;
  return null;
}

type Context = Pick<ProtocolContext, 'clock' | 'checkOutboundUrl' | 'allowInsecureHttp'>;

/** Settings as they will be saved: completed from metadata when its URL is given, checked, normalised. */
export async function prepareSettings(settings: SamlSettings, context: Context): Promise<SamlSettings> {
  const merged = settings.idpMetadataUrl ? await importMetadata(settings, context) : settings;
  const fieldErrors: FieldError[] = [];
  const idpEntityId = (merged.idpEntityId ?? '').trim();
  if (idpEntityId === '') fieldErrors.push({ field: 'settings.idpEntityId', message: 'is required' });
  const idpSsoUrl = (merged.idpSsoUrl ?? '').trim();
  const urlProblem = ssoUrlProblem(idpSsoUrl, context.allowInsecureHttp);
  if (urlProblem) fieldErrors.push({ field: 'settings.idpSsoUrl', message: urlProblem });
  let idpCertificate = '';
  try {
    idpCertificate = usableCertificates(merged.idpCertificate ?? '', context.clock.now());
  } catch (error) {
    if (!(error instanceof MetadataError)) throw error;
    fieldErrors.push({ field: 'settings.idpCertificate', message: error.message });
  }
  if (fieldErrors.length > 0) throw errors.validation(fieldErrors);
  const metadataUrl = merged.idpMetadataUrl ? { idpMetadataUrl: merged.idpMetadataUrl } : {};
  return { idpEntityId, idpSsoUrl, idpCertificate, ...metadataUrl };
}

async function importMetadata(settings: SamlSettings, context: Context): Promise<SamlSettings> {
  const field = 'settings.idpMetadataUrl';
  const url = await context.checkOutboundUrl(settings.idpMetadataUrl ?? '', field);
  let metadata: IdpMetadata;
  try {
    metadata = parseIdpMetadata(await fetchMetadata(url));
  } catch (error) {
    if (!(error instanceof MetadataError)) throw error;
    throw errors.validation([{ field, message: error.message }]);
  }
  const given = (settings.idpEntityId ?? '').trim();
  if (given !== '' && metadata.entityId !== '' && given !== metadata.entityId) {
    const message = `does not match the metadata's entityID ${metadata.entityId}`;
    throw errors.validation([{ field: 'settings.idpEntityId', message }]);
  }
  return {
    idpEntityId: metadata.entityId || given,
    idpSsoUrl: metadata.ssoUrl || settings.idpSsoUrl,
    idpCertificate: metadata.certificates.join('') || settings.idpCertificate,
    idpMetadataUrl: url.href,
  };
}

/** The browser, not this server, goes to the SSO URL: it needs https, not the outbound guard. */
function ssoUrlProblem(value: string, allowInsecureHttp: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value === '' ? 'is required' : 'must be an absolute URL';
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && allowInsecureHttp) return null;
  return 'must use https';
}

/** PEM of the certificates to trust: all parse, one at least is valid now, expired ones are dropped. */
function usableCertificates(input: string, now: Date): string {
  if (input.trim() === '') throw new MetadataError('is required');
  const certificates = parseCertificates(input);
  if (!certificates.some((certificate) => validityProblem(certificate, now) === null)) {
    throw new MetadataError(validityProblem(certificates[0], now) ?? 'is not valid');
  }
  return certificates
    .filter((certificate) => now < validTo(certificate))
    .map(certificatePem)
    .join('');
}

/** "Test connection" for SAML: offline, as the IdP need not be reachable from this server. */
export function checkSettings(settings: SamlSettings, context: Context): { ok: boolean; detail: string } {
  const urlProblem = ssoUrlProblem(settings.idpSsoUrl, context.allowInsecureHttp);
  const urlDetail = urlProblem ? `The SSO URL ${urlProblem}.` : 'The SSO URL is well-formed.';
  let certificates: X509Certificate[];
  try {
    certificates = parseCertificates(settings.idpCertificate);
  } catch (error) {
    if (!(error instanceof MetadataError)) throw error;
    return { ok: false, detail: `The IdP certificate ${error.message}. ${urlDetail}` };
  }
  const now = context.clock.now();
  const current = certificates.filter((certificate) => validityProblem(certificate, now) === null);
  if (current.length === 0) {
    const problem = validityProblem(certificates[0], now);
    return { ok: false, detail: `The IdP certificate ${problem}: import the IdP's new certificate. ${urlDetail}` };
  }
  // During a rollover the later certificate decides how long the connection keeps working.
  const until = new Date(Math.max(...current.map((certificate) => validTo(certificate).getTime())));
  const days = Math.floor((until.getTime() - now.getTime()) / DAY_MS);
  const on = until.toISOString().slice(0, 10);
  const certDetail =
    days < EXPIRY_WARNING_DAYS
      ? `Warning: the IdP certificate expires in ${days} days (${on}); import its successor before then.`
      : `The IdP certificate is valid for ${days} more days (until ${on}).`;
  return { ok: urlProblem === null, detail: `${certDetail} ${urlDetail}` };
}
