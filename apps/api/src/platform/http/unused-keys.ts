import type { FastifyReply } from 'fastify';
import { trackBodyUse, warningsHeaderValue } from '@strata/domain/cognitive';
import { Body } from '@strata/domain/validation';

/**
 * Runs a cognitive read or evolve route (`/retrieve`, `/traverse`, `/evolve`) on a body that
 * records which keys it reads, and reports the keys it never read in the `strata-warnings`
 * header (REFERENCE §2.8: nothing a client sent is dropped silently). The header, not the
 * body: these routes answer node records, lists and pages whose shapes are closed.
 */
export async function reportingUnusedKeys<T>(raw: Body, path: string, reply: FastifyReply, run: (body: Body) => Promise<T>): Promise<T> {
  const use = trackBodyUse(raw);
  const out = await run(use.body);
  const warnings = use.warnings(path, String(raw.action), false);
  if (warnings.length) reply.header('strata-warnings', warningsHeaderValue(warnings));
  return out;
}
