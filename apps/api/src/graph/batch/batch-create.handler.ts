import { Inject } from '@nestjs/common';
import { classificationOf } from '@strata/domain/governance';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainError, Errors } from '@strata/domain/errors';
import { readEdgeInput } from '@strata/domain/graph';
import { NodeRecord } from '@strata/domain/records';
import { Body, readString, readUid } from '@strata/domain/validation';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { createEdge, createNode } from '@strata/platform/unit-of-work/graph-ops';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';

export const BATCH_MAX_NODES = 1000;
export const BATCH_MAX_EDGES = 5000;

export class BatchCreateCommand {
  constructor(readonly ctx: CommandContext, readonly body: Body) {}
}

/**
 * Tags an item's failure with where it happened (`nodes[3]`, `edges[0].to_uid`); the name is
 * built only then (a batch runs this for each of its thousands of items).
 */
function at<T>(list: 'nodes' | 'edges', i: number, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof DomainError) {
      const index = `${list}[${i}]`;
      const field = typeof err.context.field === 'string' ? err.context.field : undefined;
      throw new DomainError(err.status, err.code, `${index}: ${err.message}`, {
        ...err.context,
        index: field && !field.includes('[') && ['from_uid', 'to_uid', 'from_ref', 'to_ref'].includes(field) ? `${index}.${field}` : index,
      });
    }
    throw err;
  }
}

async function atAsync<T>(index: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DomainError) throw new DomainError(err.status, err.code, `${index}: ${err.message}`, { ...err.context, index });
    throw err;
  }
}

function asItems(body: Body, field: 'nodes' | 'edges', max: number): Body[] {
  const v = body[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw Errors.invalidField(field, `${field} must be an array`);
  if (v.length > max) throw Errors.invalidField(field, `a batch takes at most ${max} ${field}`);
  return v.map((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw Errors.invalidField(`${field}[${i}]`, `${field}[${i}] must be an object`, { index: `${field}[${i}]` });
    return item as Body;
  });
}

/**
 * POST /batch (REFERENCE §8.8): validated in full, then committed in one transaction.
 * Edges may point at nodes of the same batch through refs.
 */
@CommandHandler(BatchCreateCommand)
export class BatchCreateHandler implements ICommandHandler<BatchCreateCommand> {
  constructor(@Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork) {}

  execute({ ctx, body }: BatchCreateCommand) {
    const nodes = asItems(body, 'nodes', BATCH_MAX_NODES);
    const edges = asItems(body, 'edges', BATCH_MAX_EDGES);
    const refs = new Map<string, number>();
    nodes.forEach((n, i) => {
      const ref = at('nodes', i, () => readString(n, 'ref', { max: 200 }));
      if (ref === undefined) return;
      if (refs.has(ref)) throw Errors.invalidField('ref', `ref '${ref}' is used twice`, { index: `nodes[${i}].ref` });
      refs.set(ref, i);
    });
    const edgeInputs = edges.map((e, i) =>
      at('edges', i, () => {
        if (e.edge_type === undefined || e.edge_type === null) {
          const p = e.props as Body | undefined;
          if (!p || p._type === undefined) throw Errors.missingField('edge_type');
        }
        const input = readEdgeInput(e);
        const from = endpoint(e, 'from', refs);
        const to = endpoint(e, 'to', refs);
        return { input, from, to };
      }),
    );
    return this.uow.run(ctx, async (tx) => {
      // a node's own space_uid places it (checked with the request's at commit); its Space's default classification applies
      const placed = (n: Body) => typeof n.space_uid === 'string' && n.space_uid;
      const ownSpace = nodes.some(placed) ? await Promise.all(nodes.map((n) => (placed(n) ? tx.node(n.space_uid as string) : undefined))) : [];
      const created: NodeRecord[] = nodes.map((n, i) =>
        at('nodes', i, () => {
          const space = ownSpace[i];
          const write = space?.node_type === 'Space' ? { ...tx.write, default_classification: classificationOf({ classification: space.props.default_classification }) } : tx.write;
          const node = createNode(tx, { ...n, agent_id: undefined }, {}, write);
          if (n.space_uid !== undefined && n.space_uid !== null) tx.nodePlacements.set(node.uid, { space_uid: n.space_uid, field: `nodes[${i}].space_uid` });
          return node;
        }),
      );
      const edgeUids: string[] = [];
      for (let i = 0; i < edgeInputs.length; i++) {
        const { input, from, to } = edgeInputs[i];
        const fromNode = from.ref !== undefined ? created[from.ref] : await atAsync(`edges[${i}].from_uid`, () => tx.liveNode(from.uid!, 'from_uid'));
        const toNode = to.ref !== undefined ? created[to.ref] : await atAsync(`edges[${i}].to_uid`, () => tx.liveNode(to.uid!, 'to_uid'));
        edgeUids.push(createEdge(tx, input, fromNode, toNode).uid);
      }
      const refOut: Record<string, string> = {};
      for (const [ref, i] of refs) refOut[ref] = created[i].uid;
      return { nodes_added: created.length, edges_added: edgeUids.length, node_uids: created.map((n) => n.uid), edge_uids: edgeUids, refs: refOut };
    });
  }
}

function endpoint(e: Body, side: 'from' | 'to', refs: Map<string, number>): { uid?: string; ref?: number } {
  const refName = readString(e, `${side}_ref`);
  if (refName !== undefined) {
    const i = refs.get(refName);
    if (i === undefined) throw Errors.invalidField(`${side}_ref`, `${side}_ref '${refName}' names no node of this batch`);
    return { ref: i };
  }
  return { uid: readUid(e, `${side}_uid`, { required: true }) };
}
