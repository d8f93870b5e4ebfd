import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthContext, StrataRequestState } from '@strata/auth/auth-context';
import { AuthErrors } from '@strata/auth/auth-errors';
import { PlanLimits } from '@strata/auth/plans/plan-limits';
import { DomainError, Errors } from '@strata/domain/errors';

/**
 * Who may call a managed-agent route (REFERENCE §16.1):
 * - `read`: any member, any key;
 * - `manage` (agents create/PATCH/archive, schedule writes): owner or admin; a `write` key not bound to an agent;
 * - `act` (sessions, messages, interrupt, archive, respond): member or higher; a `write` key (a bound one: its own agent, checked by the handler);
 * - `decide` (resolve-decision): member or higher, users only.
 */
export type AgentAccess = 'read' | 'manage' | 'act' | 'decide';
const AGENT_ACCESS = 'strata:agent-access';
export const AgentRoute = (access: AgentAccess) => SetMetadata(AGENT_ACCESS, access);

const RANK = { viewer: 0, member: 1, admin: 2, owner: 3 } as const;

function insufficientRole(required: 'member' | 'admin'): DomainError {
  return new DomainError(403, 'insufficient_role', `${required} role or higher required`, { required_role: required });
}

/**
 * The check order after authentication: tag and role, then the plan (every §16 route answers
 * 403 `plan_required` on a plan without managed agents), all before the body is read (guards
 * run before the DTO pipe).
 */
@Injectable()
export class AgentAccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly plans: PlanLimits,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const access = this.reflector.getAllAndOverride<AgentAccess>(AGENT_ACCESS, [context.getHandler(), context.getClass()]) ?? 'read';
    const req = context.switchToHttp().getRequest<{ strata?: StrataRequestState }>();
    const auth = req.strata?.auth;
    if (!auth) throw AuthErrors.invalidToken();
    checkAgentRoute(access, auth, this.plans);
    return true;
  }
}

function checkAgentRoute(access: AgentAccess, auth: AuthContext, plans: PlanLimits): void {
  assertAgentAccess(access, auth);
  plans.assertManagedAgentsAllowed(auth);
}

/**
 * The guard's checks of one controller method, read from the same metadata (`@AgentRoute` on
 * the method, else on the controller): what a route served outside the Nest pipeline (the
 * fast lane) runs in the guard's place, so the two cannot disagree.
 */
export function agentRouteGuard(plans: PlanLimits, controller: Function, methodName: string): (auth: AuthContext) => void {
  const handler = (controller.prototype as Record<string, Function>)[methodName];
  if (typeof handler !== 'function') throw new Error(`${controller.name}.${methodName} is not a method`);
  const access = ((Reflect.getMetadata(AGENT_ACCESS, handler) ?? Reflect.getMetadata(AGENT_ACCESS, controller)) as AgentAccess | undefined) ?? 'read';
  return (auth) => checkAgentRoute(access, auth, plans);
}

export function assertAgentAccess(access: AgentAccess, auth: AuthContext): void {
  if (access === 'read') return;
  if (auth.credential === 'api_key') {
    if (access === 'decide') throw AuthErrors.apiKeyNotAllowed();
    if (!auth.scopes.includes('write')) throw AuthErrors.readOnly();
    if (access === 'manage' && auth.bound_agent_id !== null) throw Errors.forbidden('a key bound to an agent cannot manage agents or schedules');
    return;
  }
  const rank = auth.role ? RANK[auth.role] : -1;
  if (access === 'manage' && rank < RANK.admin) throw insufficientRole('admin');
  if ((access === 'act' || access === 'decide') && rank < RANK.member) throw insufficientRole('member');
}
