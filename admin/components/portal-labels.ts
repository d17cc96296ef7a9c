// Code names as words, for the columns that hold a code (an audit action, a session's mode, a
// resource's format): `user.password_reset_requested` reads "User: password reset requested",
// `read_only` "Read only", `api_key` "API key", `pdf` "PDF". The stored value, the filters and the
// API keep the code.
const ACRONYMS: Record<string, string> = {
  api: 'API',
  crm: 'CRM',
  csv: 'CSV',
  docx: 'DOCX',
  idp: 'IdP',
  jpeg: 'JPEG',
  mfa: 'MFA',
  mp3: 'MP3',
  mp4: 'MP4',
  oidc: 'OIDC',
  pdf: 'PDF',
  png: 'PNG',
  pptx: 'PPTX',
  saml: 'SAML',
  scim: 'SCIM',
  sso: 'SSO',
  svg: 'SVG',
  url: 'URL',
  wav: 'WAV',
  webm: 'WebM',
  xlsx: 'XLSX',
};

const words = (code: string) =>
  code
    .split(/[_\s-]+/)
    .filter(Boolean)
    .map((word) => ACRONYMS[word.toLowerCase()] ?? word.toLowerCase())
    .join(' ');

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export const codeLabel = (value: unknown): string => {
  const code = String(value ?? '');
  if (!code) return '';
  const dot = code.indexOf('.');
  // an event name: its subject, then what happened
  if (dot > 0) return `${capitalised(words(code.slice(0, dot)))}: ${words(code.slice(dot + 1))}`;
  return capitalised(words(code));
};
