import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuthContext } from '@strata/auth/auth-context';
import { assertCanWriteInSpaces } from '@strata/auth/request-context.decorator';
import { applyTriggerAliases, CognitiveView, Decision, EndpointDef, resolveAction, trackBodyUse, withWarnings } from '@strata/domain/cognitive';
import { CLOCK, Clock } from '@strata/domain/time';
import { Body } from '@strata/domain/validation';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { inSameSpaces } from '@strata/platform/scope/space-membership';
import { txMembership } from '@strata/platform/scope/space-write-rule';
import { applyChanges } from './apply-changes';
import { ReadModelView } from './read-model-view';
import { ScopedView } from './scoped-view';
import { TxView } from './tx-view';

/** One call of a cognitive endpoint: the endpoint's action table picks the decider. */
export class CognitiveCommand {
  constructor(
    readonly endpoint: EndpointDef,
    readonly auth: AuthContext,
    readonly requestId: string,
    readonly body: Body,
  ) {}
}

/**
 * The generic executor. Reads run against the read model (read-only keys allowed); writes
 * need the write scope and run as ONE unit of work: decide, then stage every change.
 */
@CommandHandler(CognitiveCommand)
export class CognitiveHandler implements ICommandHandler<CognitiveCommand, Decision> {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly scopes: ReadScopeService,
  ) {}

  async execute(command: CognitiveCommand): Promise<Decision> {
    const { endpoint } = command;
    const { name } = resolveAction(endpoint, command.body);
    // the product's clients' field names (§2.8), then every key the action never reads is reported
    const use = trackBodyUse(applyTriggerAliases(endpoint.path, name, command.body));
    const decision = await this.decide(command, use.body);
    return withWarnings(decision, use.warnings(endpoint.path, name, endpoint.single !== undefined));
  }

  private async decide({ endpoint, auth, requestId }: CognitiveCommand, body: Body): Promise<Decision> {
    const { name, def } = resolveAction(endpoint, body);
    const resolved = await this.scopes.of(auth);
    const scope = resolved.restricted ? resolved : null;
    const scoped = (view: CognitiveView) => (scope ? new ScopedView(view, scope) : view);
    if (!def.writes) {
      const ctx = { org: auth.org_id, now: this.clock.now(), agent_id: auth.bound_agent_id, principal_id: auth.principal.id, uuid: () => '' };
      return def.decide(body, scoped(new ReadModelView(this.graph, auth.org_id)), ctx, name);
    }
    assertCanWriteInSpaces(auth);
    const cmd = commandContext(auth, requestId, body);
    try {
      return await this.uow.run(cmd, async (tx) => {
        const decision = await def.decide(body, scoped(new TxView(tx)), {
          ...tx.write,
          org: tx.org,
          uuid: () => tx.uuid(),
          wouldCreate: (n) => tx.wouldCreate.push(n),
          inPlacement: (uid) => inSameSpaces(txMembership(tx), uid, tx.placement?.space_uid ?? null),
        }, name);
        await applyChanges(tx, decision.changes);
        return decision;
      });
    } catch (err) {
      throw scope ? scope.conceal(err) : err;
    }
  }
}
