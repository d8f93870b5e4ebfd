import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signing (REFERENCE §12.7): a secret is `whsec_` + base64 of 32 random
 * bytes; a delivery carries `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256(key, id.timestamp.body)>`, the key being the
 * base64-decoded part after `whsec_`. During a rotation's overlap both secrets sign, the
 * signatures separated by a space.
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export function webhookSecretOf(randomBytes32: Buffer): string {
  if (randomBytes32.length !== 32) throw new Error('a webhook secret is 32 random bytes');
  return WEBHOOK_SECRET_PREFIX + randomBytes32.toString('base64');
}

/** The last 4 characters: all a schedule ever shows of its secret after creation. */
export function secretHint(secret: string): string {
  return secret.slice(-4);
}

export function signWebhook(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((s) => {
      const key = Buffer.from(s.startsWith(WEBHOOK_SECRET_PREFIX) ? s.slice(WEBHOOK_SECRET_PREFIX.length) : s, 'base64');
      return 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
    })
    .join(' ');
}

/** Delays before the 2nd to 6th webhook attempts (§12.7): 1 min, 5 min, 30 min, 2 h, 6 h; then the run fails. */
export const WEBHOOK_RETRY_DELAYS_SECS: readonly number[] = [60, 300, 1800, 7200, 21600];
