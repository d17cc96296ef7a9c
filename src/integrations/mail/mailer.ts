// Thin SMTP client. Everything about what to send and when lives in the mail module; this only
// speaks SMTP (nodemailer), so tests drive it against a real SMTP server on loopback.
import nodemailer, { type Transporter } from 'nodemailer';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<{ messageId: string }>;
  close(): void;
}

/**
 * `smtpUrl` is nodemailer's connection URL (smtp://user:pass@host:587, smtps://... for implicit TLS;
 * query parameters such as `?tls.rejectUnauthorized=false` become transport options).
 */
export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const transport: Transporter = nodemailer.createTransport(smtpUrl);
  return {
    async send(mail) {
      const info = await transport.sendMail({ from, ...mail });
      return { messageId: String(info.messageId ?? '') };
    },
    close() {
      transport.close();
    },
  };
}
