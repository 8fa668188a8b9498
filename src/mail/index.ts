// Outgoing email: one small seam every feature sends through (dashboard invites now, payer emails
// of subscriptions next). The operator configures an SMTP server (`smtp_url`, `smtp_from`); without
// one nothing is sent and nothing fails. A send never throws: it answers whether the message left,
// and why not, so the request that caused it goes on and can tell the person.
import { createTransport } from 'nodemailer';
import { messageProblem, type MailMessage, type MailResult, type SmtpSettings } from './rules.ts';

export * from './rules.ts';

export interface Mailer {
  /** Whether an SMTP server is configured: false, and `send` sends nothing. */
  readonly configured: boolean;
  send(message: MailMessage): Promise<MailResult>;
}

/** Mailer used while no SMTP server is configured: sends nothing, fails nothing. */
export const noMail: Mailer = {
  configured: false,
  async send() {
    return { sent: false, reason: 'Email is not configured on this gateway.' };
  },
};

/**
 * A mailer sending through the configured SMTP server, or `noMail` without one. Short timeouts: a
 * send runs while a person waits for the page, and a mail server that does not answer must not
 * hold it for minutes.
 */
export function createMailer(settings: SmtpSettings | undefined, opts: { timeoutMs?: number } = {}): Mailer {
  if (!settings) return noMail;
  const timeout = opts.timeoutMs ?? 15_000;
  const url = new URL(settings.url);
  const transport = createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    // Messages are built from the given text only: never a file or URL read into an attachment.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    configured: true,
    async send(message) {
      const problem = messageProblem(message);
      if (problem) return { sent: false, reason: problem };
      try {
        await transport.sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text, ...(message.html === undefined ? {} : { html: message.html }) });
        return { sent: true };
      } catch (e) {
        return { sent: false, reason: `The mail server did not take the message: ${e instanceof Error ? e.message.replace(/[\r\n]+/g, ' ').slice(0, 200) : String(e)}` };
      }
    },
  };
}
