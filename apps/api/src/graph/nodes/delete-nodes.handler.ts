import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { NODE_TYPE_NAME_RE, canonicalNodeTypeName } from '@strata/domain/catalogue';
import { Errors } from '@strata/domain/errors';
import { assertLayer } from '@strata/domain/graph';
import { Body, present, readBoolean, readObject, readString, readStringArray, readUids } from '@strata/domain/validation';
import { NodeFilter } from '@strata/graph-store/graph-read-model.port';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { tombstoneNode } from '@strata/platform/unit-of-work/graph-ops';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { purgeObjects } from '@strata/maintenance/purge-objects';

export class DeleteNodesCommand {
  constructor(readonly ctx: CommandContext, readonly body: Body) {}
}

/** POST /nodes/delete (REFERENCE §8.2): selectors AND together; one transaction for all. */
@CommandHandler(DeleteNodesCommand)
export class DeleteNodesHandler implements ICommandHandler<DeleteNodesCommand> {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}

  execute({ ctx, body }: DeleteNodesCommand) {
    const uids = readUids(body, 'uids', { max: 1000 });
    const agentId = readString(body, 'agent_id', { max: 128 });
    const filterBody = readObject(body, 'filter');
    const reason = readString(body, 'reason', { max: 1000 }) ?? null;
    const hardPurge = readBoolean(body, 'hard_purge') ?? false;
    const dryRun = readBoolean(body, 'dry_run') ?? false;
    const filter: NodeFilter = {};
    if (agentId !== undefined) filter.agent_id = agentId;
    if (filterBody) {
      const one = readString(filterBody, 'node_type', { label: 'filter.node_type' });
      const many = readStringArray(filterBody, 'node_types', { label: 'filter.node_types' }) ?? [];
      // the type-name syntax of every other route: a name no type can have is 400, not a filter matching nothing
      const named = [...(one ? [{ field: 'filter.node_type', name: one }] : []), ...many.map((name, i) => ({ field: `filter.node_types[${i}]`, name }))];
      for (const t of named) if (!NODE_TYPE_NAME_RE.test(t.name)) throw Errors.invalidField(t.field, `${t.field} is not a valid node type name`);
      if (named.length) filter.node_types = [...new Set(named.map((t) => canonicalNodeTypeName(t.name)))];
      if (present(filterBody, 'layer')) filter.layer = assertLayer(filterBody.layer, 'filter.layer');
      const lc = readString(filterBody, 'label_contains', { label: 'filter.label_contains' });
      if (lc !== undefined && lc.trim() !== '') filter.label_contains = lc;
      const pe = readObject(filterBody, 'prop_equals', { label: 'filter.prop_equals' });
      if (pe && Object.keys(pe).length) {
        for (const k of Object.keys(pe))
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw Errors.invalidField('filter.prop_equals', `invalid props field name '${k}'`);
        filter.props_equals = pe;
      }
    }
    // a selector that selects nothing in particular would tombstone the whole graph (§8.2)
    if (uids === undefined && Object.keys(filter).length === 0)
      throw Errors.missingField(
        filterBody === undefined ? 'uids' : 'filter',
        'give at least one selector: uids, agent_id, or a filter with node_type, node_types, layer, label_contains or prop_equals',
      );
    return this.uow.run(ctx, async (tx) => {
      const missing: string[] = [];
      if (uids !== undefined) {
        const found = await tx.reader.getNodes(tx.org, uids);
        for (const u of uids) if (!found.has(u)) missing.push(u);
        filter.uids = uids.filter((u) => found.has(u));
      }
      // matched = live nodes the selectors pick (hard purge also takes tombstoned ones)
      const matched = (await tx.reader.listNodes(tx.org, { ...filter, include_tombstoned: hardPurge }, { limit: 10_000_000, offset: 0 })).items;
      const out = { matched: matched.length, nodes_tombstoned: 0, edges_tombstoned: 0, nodes_purged: 0, edges_purged: 0, missing };
      if (dryRun) return { ...out, dry_run: true };
      if (hardPurge) {
        const counts = await purgeObjects(tx, matched.map((n) => n.uid), [], null);
        return { ...out, nodes_purged: counts.nodes_purged, edges_purged: counts.edges_purged };
      }
      for (const n of matched) {
        const r = await tombstoneNode(tx, n.uid, { reason, cascade: true });
        if (r.changed) out.nodes_tombstoned++;
        out.edges_tombstoned += r.edges_tombstoned;
      }
      return out;
    });
  }
}
