import { Inject, Injectable, Optional } from '@nestjs/common';
import * as nodemailer from 'nodemailer';
import { BriefVersion, BriefingSchedule, Change, signWebhook } from '@strata/domain/briefs';
import { guardedFetch, GuardedFetch } from '@strata/mcp/client';
import { HOST_RESOLVER, HostResolver, systemHostResolver } from '@strata/mcp/client/host-resolver';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';

/** What one attempt found: accepted or not, the HTTP status (webhooks) and the error. */
export interface AttemptResult {
  ok: boolean;
  http_status: number | null;
  error: { code: string; message: string } | null;
}

export interface Delivery {
  run_id: string;
  schedule: BriefingSchedule;
  project_label: string;
  version: BriefVersion;
  material_changes: Change[];
}

/** A webhook answers within 10 s or the attempt failed. */
const WEBHOOK_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Sends a brief over a schedule's channel (REFERENCE §12.7). Webhooks go through the guarded
 * fetch (addresses checked at connect time, no redirects) under STRATA_WEBHOOK_ALLOW_PRIVATE;
 * e-mail through nodemailer to STRATA_SMTP_URL.
 */
@Injectable()
export class BriefingDelivery {
  private readonly fetch: GuardedFetch;
  private mailer: nodemailer.Transporter | null = null;

  constructor(
    @Inject(STRATA_CONFIG) private readonly config: StrataConfig,
    @Optional() @Inject(HOST_RESOLVER) resolver: HostResolver | null,
  ) {
    this.fetch = guardedFetch({ allowPrivate: config.briefings.webhookAllowPrivate, connectTimeoutMs: WEBHOOK_TIMEOUT_MS, maxBodyBytes: MAX_ANSWER_BYTES, resolver: resolver ?? systemHostResolver });
  }

  get smtpConfigured(): boolean {
    return !!this.config.briefings.smtpUrl && !!this.config.briefings.smtpFrom;
  }

  /** The JSON body of a webhook delivery; the same on every attempt of a run. */
  webhookBody(d: Delivery): string {
    return JSON.stringify({
      type: 'brief.delivered',
      run_id: d.run_id,
      schedule_id: d.schedule.id,
      project_uid: d.schedule.project_uid,
      version: d.version.version,
      material_changes: d.material_changes,
      brief: d.version,
    });
  }

  async webhook(d: Delivery, secrets: string[], timestamp: number): Promise<AttemptResult> {
    const body = this.webhookBody(d);
    try {
      const res = await this.fetch(d.schedule.recipient, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': d.run_id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(secrets, d.run_id, timestamp, body),
        },
        body,
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      });
      await res.arrayBuffer().catch(() => undefined);
      const ok = res.status >= 200 && res.status < 300;
      return { ok, http_status: res.status, error: ok ? null : { code: 'http_error', message: `the endpoint answered ${res.status}` } };
    } catch (err) {
      const e = err as Error & { code?: string };
      const code = e.code === 'url_not_allowed' ? 'url_not_allowed' : e.name === 'TimeoutError' ? 'timeout' : 'unreachable';
      return { ok: false, http_status: null, error: { code, message: e.message } };
    }
  }

  async email(d: Delivery, now: number): Promise<AttemptResult> {
    this.mailer ??= nodemailer.createTransport(this.config.briefings.smtpUrl!);
    try {
      await this.mailer.sendMail({
        from: this.config.briefings.smtpFrom!,
        to: d.schedule.recipient,
        subject: `[Strata] ${d.project_label} — brief v${d.version.version}`,
        text: emailText(d),
        html: emailHtml(d),
        date: new Date(now * 1000),
      });
      return { ok: true, http_status: null, error: null };
    } catch (err) {
      // the SMTP URL may carry credentials: only the server's answer is kept
      const e = err as Error & { responseCode?: number; code?: string };
      return { ok: false, http_status: null, error: { code: 'smtp_error', message: e.responseCode ? `SMTP ${e.responseCode}` : (e.code ?? 'SMTP delivery failed') } };
    }
  }

  close(): void {
    this.mailer?.close();
  }
}

const KIND_TITLES = { finding: 'Findings', tension: 'Tensions', open_question: 'Open questions' } as const;

function emailText(d: Delivery): string {
  const out = [`${d.project_label} — brief v${d.version.version}`, ''];
  if (d.version.summary) out.push(d.version.summary, '');
  for (const kind of ['finding', 'tension', 'open_question'] as const) {
    const items = d.version.items.filter((i) => i.kind === kind);
    if (!items.length) continue;
    out.push(KIND_TITLES[kind]);
    for (const i of items) {
      out.push(`${i.rank}. ${i.text}`);
      for (const c of i.citations) out.push(`   > "${c.quote ?? ''}" (${c.document_title}, chunk ${c.chunk_index})`);
    }
    out.push('');
  }
  return out.join('\n');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function emailHtml(d: Delivery): string {
  const parts = [`<h1>${esc(d.project_label)} — brief v${d.version.version}</h1>`];
  if (d.version.summary) parts.push(`<p>${esc(d.version.summary)}</p>`);
  for (const kind of ['finding', 'tension', 'open_question'] as const) {
    const items = d.version.items.filter((i) => i.kind === kind);
    if (!items.length) continue;
    parts.push(`<h2>${KIND_TITLES[kind]}</h2><ol>`);
    for (const i of items)
      parts.push(
        `<li><p>${esc(i.text)}</p>${i.citations.map((c) => `<blockquote>${esc(c.quote ?? '')} <cite>${esc(c.document_title)}, chunk ${c.chunk_index}</cite></blockquote>`).join('')}</li>`,
      );
    parts.push('</ol>');
  }
  return parts.join('\n');
}
