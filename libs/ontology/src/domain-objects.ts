import { typeKey } from '@strata/domain/catalogue';
import { Errors } from '@strata/domain/errors';
import {
  ObjectReference,
  ObjectTypeRecord,
  OntologyErrors,
  SchemaTypes,
  ValidationProblem,
  isDomainObjectProps,
} from '@strata/domain/ontology';
import { NodeRecord } from '@strata/domain/records';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';

/** Whether a node is a domain object (layer `ontology`, domain-object props). */
export function isDomainObject(n: NodeRecord | null): n is NodeRecord {
  return !!n && n.layer === 'ontology' && isDomainObjectProps(n.props as unknown as Record<string, unknown>);
}

export function objectProps(n: NodeRecord): Record<string, any> {
  return n.props as unknown as Record<string, any>;
}

/** The live object type a request names (any spelling), or 422 naming `object_type`. */
export function namedObjectType(types: SchemaTypes, name: string, path = 'object_type'): ObjectTypeRecord {
  const t = types.objects.find((o) => o.status !== 'archived' && typeKey(o.name) === typeKey(name));
  if (!t) throw OntologyErrors.validationFailed([{ path, message: `${name} is not an object type of this schema` }]);
  return t;
}

/**
 * References must be live domain objects of the referenced type (REFERENCE §11); a uid
 * outside the caller's grants is as unknown as a missing one.
 */
export async function checkReferences(tx: GraphTx, refs: ObjectReference[], visible: (uid: string) => boolean): Promise<void> {
  const problems: ValidationProblem[] = [];
  for (const r of refs) {
    const n = visible(r.uid) ? await tx.node(r.uid) : null;
    if (!isDomainObject(n) || n.tombstone_at !== null) problems.push({ path: r.path, message: `${r.uid} is not a live domain object` });
    else if (typeKey(n.node_type) !== typeKey(r.object_type)) problems.push({ path: r.path, message: `${r.uid} is a ${n.node_type}, expected a ${r.object_type}` });
  }
  if (problems.length) throw OntologyErrors.validationFailed(problems);
}

/** The domain object at `uid` of this organization, or 404. */
export async function loadObject(tx: GraphTx, uid: string): Promise<NodeRecord> {
  const n = await tx.node(uid);
  if (!isDomainObject(n)) throw OntologyErrors.objectNotFound(uid);
  return n;
}

export function assertLive(n: NodeRecord): void {
  if (n.tombstone_at !== null) throw Errors.tombstoned('node', n.uid);
}
