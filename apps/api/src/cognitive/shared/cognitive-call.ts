import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { Decision, EndpointDef } from '@strata/domain/cognitive';
import { assertObjectBody } from '@strata/domain/validation';
import { CognitiveCommand } from './cognitive.command';

/** What every cognitive controller does: check the body, run the action, answer its status. */
export async function cognitiveCall(
  commands: CommandBus,
  endpoint: EndpointDef,
  auth: AuthContext,
  requestId: string,
  raw: unknown,
  reply: FastifyReply,
): Promise<unknown> {
  const body = assertObjectBody(raw);
  const decision: Decision = await commands.execute(new CognitiveCommand(endpoint, auth, requestId, body));
  reply.status(decision.status);
  // a bare-array answer cannot carry `warnings` in its body
  if (decision.warnings?.length) reply.header('strata-warnings', asciiJson(decision.warnings));
  return decision.body;
}

/** JSON with every non-ASCII character escaped, as a header value must be. */
function asciiJson(v: unknown): string {
  return JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
