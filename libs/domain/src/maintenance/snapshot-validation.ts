import { findEdgeTypeBySpelling, findNodeTypeBySpelling, getNodeType, isPlainObject, normaliseText, resolvePropsAliases, typeKey, validateNodeProps } from '../catalogue';
import { DomainError, Errors } from '../errors';
import { assertLayer, decideCreateNode, decideNodeAliases, readEdgeInput } from '../graph';
import { EdgeRecord, Layer, NodeRecord } from '../records';
import { Body, present, readNumber, readString, readUid, readUnit } from '../validation';
import { vectorValuesProblem } from '../retrieval/vector-values';
import {
  DISTANCE_METRICS,
  DistanceMetric,
  SNAPSHOT_FORMAT,
  SNAPSHOT_FORMAT_VERSION,
  SnapshotAlias,
  SnapshotEmbeddings,
  SnapshotSeriesPoint,
} from './snapshot-format';

/**
 * Validation of a snapshot for `POST /import` (REFERENCE §8.6), all of it before anything is
 * written. Pure: references to nodes outside the snapshot are returned for the caller to
 * check against the graph (`checkReferences`).
 */

export const ALIAS_TEXT_MAX = 500;
export const MAX_EMBEDDING_DIMENSION = 8192;

/** An edge as imported; `layer` is null when the snapshot left it out (then: the from-node's). */
export type ImportedEdge = Omit<EdgeRecord, 'layer'> & { layer: Layer | null };

export interface ImportedAlias extends SnapshotAlias {
  norm: string;
}

/** A uid the snapshot names but does not contain; it must exist in the graph. */
export interface SnapshotReference {
  uid: string;
  /** the item, e.g. `edges[3]` */
  index: string;
  /** the field, e.g. `edges[3].to_uid` */
  field: string;
  /** `series`: the node must be a Series */
  kind: 'node' | 'series';
}

export interface ParsedSnapshot {
  nodes: NodeRecord[];
  /** uid → decay clock (`last_decayed_at`), for the nodes whose snapshot item carries one */
  decay_clocks: Map<string, number>;
  edges: ImportedEdge[];
  /** one per (text norm, canonical uid); the last one given wins */
  aliases: ImportedAlias[];
  embeddings: SnapshotEmbeddings | null;
  /** points per series, one per timestamp (the last one given wins), in input order */
  series: Map<string, SnapshotSeriesPoint[]>;
  references: SnapshotReference[];
}

export function invalidSnapshot(message: string, extra: Record<string, unknown> = {}): DomainError {
  return new DomainError(400, 'invalid_snapshot', message, extra);
}

/** Runs an item's validation; any error it raises also names the item (`index`). */
function atItem<T>(index: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof DomainError && err.context.index === undefined)
      throw new DomainError(err.status, err.code, `${index}: ${err.message}`, { ...err.context, index });
    throw err;
  }
}

function readArray(body: Body, field: string): unknown[] {
  const v = body[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw Errors.invalidField(field, `${field} must be an array`);
  return v;
}

function asItem(v: unknown, index: string): Body {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw Errors.invalidField(index, `${index} must be an object`);
  return v as Body;
}

function readTime(item: Body, field: string, index: string, fallback: number): number {
  return readNumber(item, field, { min: 0, label: `${index}.${field}` }) ?? fallback;
}

function readVersion(item: Body, index: string): number {
  return readNumber(item, 'version', { integer: true, min: 1, label: `${index}.version` }) ?? 1;
}

/** How the server emits custom type names: PascalCase, nothing but letters and digits. */
const EMITTED_NAME_RE = /^[A-Z][A-Za-z0-9]*$/;

/**
 * The custom type name to import. §3.2's PascalCase rule is not idempotent (`a b c` → `ABC`,
 * and `ABC` → `Abc`), so a name already in the form the server emits is kept as stored, and
 * a snapshot round-trips its types unchanged; any other spelling is canonicalised as on create.
 */
function importedTypeName(given: unknown, resolved: string, builtin: boolean): string {
  if (builtin || typeof given !== 'string' || !EMITTED_NAME_RE.test(given) || typeKey(given) !== typeKey(resolved)) return resolved;
  return given;
}

/**
 * A node record as exported: validated like a create (props per type), then its stored state kept.
 * `aliases` collects the aliases its props name for it (§2.8 `canonical_name`), as on create.
 */
export function readSnapshotNode(item: Body, index: string, now: number, aliases: ImportedAlias[] = []): NodeRecord {
  const uid = readUid(item, 'uid', { required: true, label: `${index}.uid` })!;
  const agentId = readString(item, 'agent_id', { max: 128, label: `${index}.agent_id` }) ?? null;
  const createdAt = readTime(item, 'created_at', index, now);
  const texts: string[] = [];
  const created = decideCreateNode(item, uid, { now: createdAt, agent_id: agentId, principal_id: 'import' }, { keepSkillStatus: true, prefix: index, nodeAliases: texts });
  for (const a of decideNodeAliases(created, texts, `${index}.props.canonical_name`)) aliases.push({ text: a.text, norm: a.norm, canonical_uid: a.canonical_uid, score: a.score, created_at: createdAt });
  const nodeType = importedTypeName(item.node_type ?? (item.props as Body | undefined)?._type, created.node_type, findNodeTypeBySpelling(created.node_type) !== undefined);
  const base = nodeType === created.node_type ? created : { ...created, node_type: nodeType, props: { ...created.props, _type: nodeType } as NodeRecord['props'] };
  // stored props keep their server-maintained values (Series cache fields), unlike a client create
  const given = (item.props ?? {}) as Body;
  // the §2.8 node aliases were taken above; they are not props fields
  const raw = isPlainObject(given) && getNodeType(created.node_type) ? resolvePropsAliases(created.node_type, given, { takeNodeAliases: true }).props : given;
  const props = validateNodeProps(base.node_type, getNodeType(base.node_type) ?? null, { ...raw, _type: base.node_type }, {
    mode: 'create',
    fieldPrefix: `${index}.props`,
    keepServerMaintained: true,
  }) as NodeRecord['props'];
  const tombstoneAt = readNumber(item, 'tombstone_at', { min: 0, label: `${index}.tombstone_at` }) ?? null;
  const tombstoneReason = readString(item, 'tombstone_reason', { max: 1000, label: `${index}.tombstone_reason`, allowEmpty: true }) ?? null;
  const tombstoneBy = readString(item, 'tombstone_by', { max: 128, label: `${index}.tombstone_by`, allowEmpty: true }) ?? null;
  return {
    ...base,
    // an exported summary is kept as stored, even when it was derived or is empty
    summary: typeof item.summary === 'string' ? item.summary : base.summary,
    props,
    updated_at: readTime(item, 'updated_at', index, createdAt),
    version: readVersion(item, index),
    tombstone_at: tombstoneAt,
    tombstone_reason: tombstoneAt === null ? null : tombstoneReason,
    tombstone_by: tombstoneAt === null ? null : tombstoneBy,
  };
}

/**
 * A snapshot node's decay clock (`last_decayed_at`, REFERENCE §7.2): when decay last changed
 * its salience in the source; null when absent (older snapshots, nodes never decayed).
 */
export function readSnapshotDecayClock(item: Body, index: string): number | null {
  return readNumber(item, 'last_decayed_at', { min: 0, label: `${index}.last_decayed_at` }) ?? null;
}

export function readSnapshotEdge(item: Body, index: string, now: number): ImportedEdge {
  const uid = readUid(item, 'uid', { required: true, label: `${index}.uid` })!;
  const from = readUid(item, 'from_uid', { required: true, label: `${index}.from_uid` })!;
  const to = readUid(item, 'to_uid', { required: true, label: `${index}.to_uid` })!;
  const read = readEdgeInput(item, { prefix: index });
  const edgeType = importedTypeName(item.edge_type ?? (item.props as Body | undefined)?._type, read.edge_type, findEdgeTypeBySpelling(read.edge_type) !== undefined);
  const input = edgeType === read.edge_type ? read : { ...read, edge_type: edgeType, props: { ...read.props, _type: edgeType } };
  const layer = present(item, 'layer') ? assertLayer(item.layer, `${index}.layer`) : null;
  const createdAt = readTime(item, 'created_at', index, now);
  const tombstoneAt = readNumber(item, 'tombstone_at', { min: 0, label: `${index}.tombstone_at` }) ?? null;
  const tombstoneReason = readString(item, 'tombstone_reason', { max: 1000, label: `${index}.tombstone_reason`, allowEmpty: true }) ?? null;
  return {
    uid,
    from_uid: from,
    to_uid: to,
    edge_type: input.edge_type,
    layer,
    weight: input.weight ?? 0.5,
    confidence: input.confidence ?? 1.0,
    props: input.props as EdgeRecord['props'],
    agent_id: readString(item, 'agent_id', { max: 128, label: `${index}.agent_id` }) ?? null,
    version: readVersion(item, index),
    created_at: createdAt,
    updated_at: readTime(item, 'updated_at', index, createdAt),
    tombstone_at: tombstoneAt,
    tombstone_reason: tombstoneAt === null ? null : tombstoneReason,
  };
}

export function readSnapshotAlias(item: Body, index: string, now: number): ImportedAlias {
  const text = readString(item, 'text', { required: true, max: ALIAS_TEXT_MAX, label: `${index}.text` })!;
  const canonical = readUid(item, 'canonical_uid', { required: true, label: `${index}.canonical_uid` })!;
  const scoreField = ['score', 'alias_score', 'match_score'].find((f) => present(item, f)) ?? 'score';
  const score = readUnit(item, scoreField, `${index}.${scoreField}`) ?? 1.0;
  return { text, norm: normaliseText(text), canonical_uid: canonical, score, created_at: readTime(item, 'created_at', index, now) };
}

export function readSnapshotEmbeddings(v: unknown): SnapshotEmbeddings | null {
  if (v === undefined || v === null) return null;
  const body = asItem(v, 'embeddings');
  const model = readString(body, 'model', { required: true, max: 200, label: 'embeddings.model' })!;
  const provider = readString(body, 'provider', { max: 100, label: 'embeddings.provider' }) ?? 'imported';
  const dimField = present(body, 'dimension') ? 'dimension' : 'dimensions';
  const dimension = readNumber(body, dimField, { required: true, integer: true, min: 1, max: MAX_EMBEDDING_DIMENSION, label: `embeddings.${dimField}` })!;
  const metricField = present(body, 'metric') ? 'metric' : 'distance_metric';
  const metric = readString(body, metricField, { label: `embeddings.${metricField}` }) ?? 'cosine';
  if (!DISTANCE_METRICS.includes(metric as DistanceMetric))
    throw Errors.invalidField(`embeddings.${metricField}`, `embeddings.${metricField} must be one of: ${DISTANCE_METRICS.join(', ')}`);
  const seen = new Set<string>();
  const items = readArray(body, 'items').map((raw, i) => {
    const index = `embeddings.items[${i}]`;
    return atItem(index, () => {
      const item = asItem(raw, index);
      const uid = readUid(item, 'uid', { required: true, label: `${index}.uid` })!;
      if (seen.has(uid)) throw invalidSnapshot(`${index}: a second vector for node ${uid}`, { field: `${index}.uid`, uid });
      seen.add(uid);
      const vector = item.vector ?? item.embedding;
      if (!Array.isArray(vector) || vector.some((x) => typeof x !== 'number' || !Number.isFinite(x)))
        throw Errors.invalidField(`${index}.vector`, `${index}.vector must be an array of finite numbers`);
      const problem = vectorValuesProblem(vector);
      if (problem) throw Errors.invalidField(`${index}.vector`, `${index}.vector must contain ${problem}`);
      if (vector.length !== dimension)
        throw new DomainError(400, 'dimension_mismatch', `${index}.vector has ${vector.length} dimensions, expected ${dimension}`, {
          field: `${index}.vector`,
          expected: dimension,
        });
      return { uid, vector: vector as number[] };
    });
  });
  return { provider, model, dimension, metric: metric as DistanceMetric, items };
}

export function readSnapshotPoint(item: Body, index: string, now: number): SnapshotSeriesPoint {
  const seriesUid = readUid(item, 'series_uid', { required: true, label: `${index}.series_uid` })!;
  const sourceUid = readUid(item, 'source_uid', { label: `${index}.source_uid` }) ?? null;
  return {
    series_uid: seriesUid,
    ts: readNumber(item, 'ts', { required: true, label: `${index}.ts` })!,
    value: readNumber(item, 'value', { required: true, label: `${index}.value` })!,
    source_uid: sourceUid,
    note: readString(item, 'note', { max: 10_000, label: `${index}.note`, allowEmpty: true }) ?? null,
    recorded_at: readTime(item, 'recorded_at', index, now),
  };
}

/**
 * Validates a whole snapshot. Errors name the failing item in `index` (`nodes[3]`,
 * `edges[0]`); an unsupported format or version, a uid given twice, and an edge, alias,
 * vector or point whose node is missing from the snapshot AND the graph are 400 invalid_snapshot.
 */
export function parseSnapshot(body: Body, now: number): ParsedSnapshot {
  if (present(body, 'format') && body.format !== SNAPSHOT_FORMAT)
    throw invalidSnapshot(`unsupported snapshot format ${JSON.stringify(body.format)}; expected "${SNAPSHOT_FORMAT}"`, { field: 'format' });
  if (body.format_version !== SNAPSHOT_FORMAT_VERSION)
    throw invalidSnapshot(
      body.format_version === undefined || body.format_version === null
        ? `format_version is required (supported: ${SNAPSHOT_FORMAT_VERSION})`
        : `unsupported format_version ${JSON.stringify(body.format_version)} (supported: ${SNAPSHOT_FORMAT_VERSION})`,
      { field: 'format_version' },
    );

  const nodes: NodeRecord[] = [];
  const decayClocks = new Map<string, number>();
  const types = new Map<string, string>();
  const nodeAliases: ImportedAlias[] = [];
  readArray(body, 'nodes').forEach((raw, i) => {
    const index = `nodes[${i}]`;
    const [n, clock] = atItem(index, () => {
      const item = asItem(raw, index);
      return [readSnapshotNode(item, index, now, nodeAliases), readSnapshotDecayClock(item, index)] as const;
    });
    if (types.has(n.uid)) throw invalidSnapshot(`${index}: node ${n.uid} appears twice`, { index, field: `${index}.uid`, uid: n.uid });
    types.set(n.uid, n.node_type);
    nodes.push(n);
    if (clock !== null) decayClocks.set(n.uid, clock);
  });

  const references: SnapshotReference[] = [];
  const refer = (uid: string, index: string, field: string, kind: SnapshotReference['kind']) => {
    const t = types.get(uid);
    if (t === undefined) references.push({ uid, index, field, kind });
    else if (kind === 'series' && t !== 'Series')
      throw invalidSnapshot(`${field}: node ${uid} is a ${t}, not a Series`, { index, field, uid });
  };

  const edges: ImportedEdge[] = [];
  const edgeUids = new Set<string>();
  readArray(body, 'edges').forEach((raw, i) => {
    const index = `edges[${i}]`;
    const e = atItem(index, () => readSnapshotEdge(asItem(raw, index), index, now));
    if (edgeUids.has(e.uid)) throw invalidSnapshot(`${index}: edge ${e.uid} appears twice`, { index, field: `${index}.uid`, uid: e.uid });
    edgeUids.add(e.uid);
    refer(e.from_uid, index, `${index}.from_uid`, 'node');
    refer(e.to_uid, index, `${index}.to_uid`, 'node');
    edges.push(e);
  });

  const aliases = new Map<string, ImportedAlias>();
  // the snapshot's own alias list comes after, so its scores win
  for (const a of nodeAliases) aliases.set(`${a.canonical_uid}\u0000${a.norm}`, a);
  readArray(body, 'aliases').forEach((raw, i) => {
    const index = `aliases[${i}]`;
    const a = atItem(index, () => readSnapshotAlias(asItem(raw, index), index, now));
    refer(a.canonical_uid, index, `${index}.canonical_uid`, 'node');
    const key = `${a.canonical_uid}\u0000${a.norm}`;
    aliases.delete(key);
    aliases.set(key, a);
  });

  const embeddings = readSnapshotEmbeddings(body.embeddings);
  embeddings?.items.forEach((item, i) => refer(item.uid, `embeddings.items[${i}]`, `embeddings.items[${i}].uid`, 'node'));

  const series = new Map<string, Map<number, SnapshotSeriesPoint>>();
  readArray(body, 'series_points').forEach((raw, i) => {
    const index = `series_points[${i}]`;
    const p = atItem(index, () => readSnapshotPoint(asItem(raw, index), index, now));
    refer(p.series_uid, index, `${index}.series_uid`, 'series');
    let byTs = series.get(p.series_uid);
    if (!byTs) series.set(p.series_uid, (byTs = new Map()));
    byTs.set(p.ts, p);
  });

  return {
    nodes,
    decay_clocks: decayClocks,
    edges,
    aliases: [...aliases.values()],
    embeddings,
    series: new Map([...series].map(([uid, byTs]) => [uid, [...byTs.values()]])),
    references,
  };
}

/**
 * Fails on the first reference (in snapshot order) whose node is not in the graph either,
 * or is not a Series where one is needed. `lookup` gives the node type of a graph node.
 */
export function checkReferences(references: SnapshotReference[], lookup: (uid: string) => string | null): void {
  for (const r of references) {
    const type = lookup(r.uid);
    if (type === null)
      throw invalidSnapshot(`${r.field}: node ${r.uid} is neither in the snapshot nor in the graph`, { index: r.index, field: r.field, uid: r.uid });
    if (r.kind === 'series' && type !== 'Series')
      throw invalidSnapshot(`${r.field}: node ${r.uid} is a ${type}, not a Series`, { index: r.index, field: r.field, uid: r.uid });
  }
}
