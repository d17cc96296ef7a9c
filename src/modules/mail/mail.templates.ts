// The e-mails the platform sends. Each template is typed by its data, rendered to text and HTML.
import type { ImpersonationMode } from '../../shared/access/actor.ts';
import { escapeHtml } from '../../shared/html.ts';

export type MailMessage =
  | {
      template: 'welcome';
      data: {
        firstName: string;
        email: string;
        loginUrl: string;
        /** Pending accounts await verification and cannot log in yet. */
        pending: boolean;
        /** Set only when the administrator chose to auto-generate the password. */
        generatedPassword?: string;
        /** Set when no password was given: a single-use link to choose one. */
        setupUrl?: string;
        setupExpiresAt?: Date;
        /** Set for accounts created by single sign-on: the connection's name (they have no password). */
        ssoConnection?: string;
      };
    }
  | { template: 'password_reset'; data: { firstName: string; resetUrl: string; expiresAt: Date } }
  | {
      template: 'impersonation_notice';
      data: {
        firstName: string;
        adminName: string;
        startedAt: Date;
        expiresAt: Date;
        mode: ImpersonationMode;
        reason: string | null;
      };
    };

export type MailTemplate = MailMessage['template'];

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  /** The text with every secret (generated password, password link) replaced: what administrators may read. */
  redactedText: string;
}

/** Marks what only the recipient may read. */
interface Secret {
  secret: string;
}
type Paragraph = string | Secret | Array<string | Secret>;

export const REDACTED = '[redacted]';

const secret = (value: string): Secret => ({ secret: value });
const utc = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function flatten(paragraph: Paragraph, redact: boolean): string {
  const parts = Array.isArray(paragraph) ? paragraph : [paragraph];
  return parts.map((part) => (typeof part === 'string' ? part : redact ? REDACTED : part.secret)).join('');
}

/** Paragraphs in, text and HTML out; a paragraph that is a URL becomes a link in the HTML. */
function compose(subject: string, paragraphs: Paragraph[]): RenderedMail {
  const plain = paragraphs.map((p) => flatten(p, false));
  const html = plain
    .map((p) =>
      /^https?:\/\/\S+$/.test(p) ? `<p><a href="${escapeHtml(p)}">${escapeHtml(p)}</a></p>` : `<p>${escapeHtml(p)}</p>`,
    )
    .join('\n');
  return {
    subject,
    text: `${plain.join('\n\n')}\n`,
    html: `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">\n${html}\n</body></html>`,
    redactedText: `${paragraphs.map((p) => flatten(p, true)).join('\n\n')}\n`,
  };
}

/** The welcome e-mail's way in: the confirmation link of a pending account first, else per account kind. */
function howToLogIn(data: Extract<MailMessage, { template: 'welcome' }>['data']): Paragraph[] {
  if (data.pending && data.setupUrl)
    return [
      'Your account becomes active once you confirm this address: choose your password with this single-use ' +
        `link (valid until ${utc(data.setupExpiresAt!)}):`,
      secret(data.setupUrl),
    ];
  const lines: Paragraph[] = data.pending
    ? ['Your account is awaiting verification; you can log in once it has been verified.']
    : [];
  if (data.ssoConnection)
    lines.push(
      `You sign in with your organization's account (single sign-on: ${data.ssoConnection}); there is no separate password.`,
    );
  else if (data.generatedPassword)
    lines.push(
      ['Your temporary password is: ', secret(data.generatedPassword)],
      'Please change it after your first login.',
    );
  else if (data.setupUrl)
    lines.push(
      `Choose your password with this single-use link (valid until ${utc(data.setupExpiresAt!)}):`,
      secret(data.setupUrl),
    );
  else lines.push('Log in with the password your administrator gave you.');
  return lines;
}

function welcome(data: Extract<MailMessage, { template: 'welcome' }>['data']): RenderedMail {
  const lines: Paragraph[] = [
    `Hello ${data.firstName},`,
    data.ssoConnection
      ? `Your Guildhall account for ${data.email} was created when you first signed in.`
      : `An administrator created your Guildhall account for ${data.email}.`,
  ];
  lines.push(...howToLogIn(data));
  lines.push('Log in at:', data.loginUrl);
  return compose('Welcome to Guildhall', lines);
}

function passwordReset(data: Extract<MailMessage, { template: 'password_reset' }>['data']): RenderedMail {
  return compose('Reset your Guildhall password', [
    `Hello ${data.firstName},`,
    'An administrator asked for your Guildhall password to be reset. Choose a new password with this single-use link:',
    secret(data.resetUrl),
    `The link expires at ${utc(data.expiresAt)}. If you did not expect this e-mail, contact your administrator.`,
  ]);
}

function impersonationNotice(data: Extract<MailMessage, { template: 'impersonation_notice' }>['data']): RenderedMail {
  const what =
    data.mode === 'read_only' ? 'view your account as you see it (read-only)' : 'act in your account on your behalf';
  return compose('A Guildhall administrator accessed your account', [
    `Hello ${data.firstName},`,
    `${data.adminName}, a platform administrator, started a session at ${utc(data.startedAt)} to ${what}.`,
    ...(data.reason ? [`Reason given: ${data.reason}`] : []),
    `The session ends at ${utc(data.expiresAt)} at the latest. Every request made in it is logged.`,
  ]);
}

export function renderMail(message: MailMessage): RenderedMail {
  switch (message.template) {
    case 'welcome':
      return welcome(message.data);
    case 'password_reset':
      return passwordReset(message.data);
    case 'impersonation_notice':
      return impersonationNotice(message.data);
  }
}
