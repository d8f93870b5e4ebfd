import { createHmac } from 'node:crypto';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedHook {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook endpoint on loopback: records every delivery and answers the scripted statuses in turn (then 200). */
export async function startWebhookReceiver(): Promise<{ url: string; received: ReceivedHook[]; answers: number[]; close(): Promise<void> }> {
  const received: ReceivedHook[] = [];
  const answers: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = answers.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hooks/brief`, received, answers, close: () => new Promise((r) => server.close(() => r())) };
}

/** Verifies a Standard Webhooks signature the way a receiver does: any of the space-separated v1 signatures may match. */
export function verifyStandardWebhook(secret: string, hook: ReceivedHook): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${hook.headers['webhook-id']}.${hook.headers['webhook-timestamp']}.${hook.body}`).digest('base64');
  return String(hook.headers['webhook-signature'])
    .split(' ')
    .some((s) => s === `v1,${expected}`);
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** An SMTP server on loopback (smtp-server) that accepts every message, or refuses the next `refuse` ones. */
export async function startSmtpServer(): Promise<{ url: string; mails: ReceivedMail[]; refuse: { count: number }; close(): Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const refuse = { count: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refuse.count > 0) {
          refuse.count--;
          const err = new Error('mailbox unavailable') as Error & { responseCode: number };
          err.responseCode = 451;
          return callback(err);
        }
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, mails, refuse, close: () => new Promise((r) => server.close(() => r())) };
}
