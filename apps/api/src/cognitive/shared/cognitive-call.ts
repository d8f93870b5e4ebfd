import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { Decision, EndpointDef, warningsHeaderValue } from '@strata/domain/cognitive';
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
  if (decision.warnings?.length) reply.header('strata-warnings', warningsHeaderValue(decision.warnings));
  return decision.body;
}
