import { GraphChanges } from '@strata/domain/graph';
import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { normaliseText } from '@strata/domain/catalogue';
import {
  ObjectTypeRecord,
  OntologyErrors,
  ProposedObject,
  assertIdentityUnchanged,
  domainObjectProps,
  objectIdentity,
  validateObjectFields,
} from '@strata/domain/ontology';
import { Streams } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';
import { EVENT_STORE, EventStore, ExpectedRevision } from '@strata/event-store/event-store.port';
import { createNode } from '@strata/platform/unit-of-work/graph-ops';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { OntologyStore } from './ontology-store';
import { assertLive, checkReferences, objectProps } from './domain-objects';

export interface ObjectToCreate extends ProposedObject {
  allow_duplicate: boolean;
  proposal_id: string | null;
  source_uids: string[];
}

/**
 * Writes domain objects as graph nodes (layer `ontology`) on the request's transaction, with
 * the generic node operations: every path that creates one — authored, approved proposal,
 * extraction — goes through the same validation, identity and duplicate rules.
 */
@Injectable()
export class ObjectWriter {
  constructor(
    private readonly store: OntologyStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  /** The live object with the same type and identity, if any (REFERENCE §11 duplicate rule). */
  existingWithIdentity(org: string, type: ObjectTypeRecord, key: string): string | null {
    return this.store.read.objectsWithIdentity(org, type.id, key)[0] ?? null;
  }

  async create(tx: GraphTx, type: ObjectTypeRecord, o: ObjectToCreate, visible: (uid: string) => boolean): Promise<NodeRecord> {
    const { fields, references } = validateObjectFields(type, o.fields, null);
    await checkReferences(tx, references, visible);
    const { identity, key } = objectIdentity(type, o.canonical_name, fields, o.identity);
    const claim = o.allow_duplicate ? null : await this.identityLock(tx, type, key);
    if (!o.allow_duplicate) {
      const existing = this.existingWithIdentity(tx.org, type, key);
      if (existing) throw OntologyErrors.duplicateObject(type.name, visible(existing) ? existing : null);
    }
    // `_type` is the forced type's name, which the node decider writes itself: sent, it would
    // only be resolved again to be checked against that same name
    const { _type, ...props } = domainObjectProps(type, { canonical_name: o.canonical_name, fields, aliases: o.aliases, identity, proposal_id: o.proposal_id, source_uids: o.source_uids });
    const node = await createNode(tx, { label: o.canonical_name, confidence: o.confidence, props }, {
      forcedType: type.name,
      forcedLayer: 'ontology',
    });
    if (claim) claim(node.uid);
    return node;
  }

  /**
   * The duplicate check is decided on the object index, which in servers mode is each
   * replica's own mirror of the log: two replicas could both find an identity free. So a
   * write under an identity also appends to that identity's stream, expecting the revision
   * read here: of two concurrent writers one commits, the other's append is refused and the
   * unit of work decides it again on a read model at the log's head, where it is a
   * duplicate. Read before the check; a claim already in the log is awaited in the index
   * first. The embedded default decides writes one at a time on an index that is always
   * current: no lock, no extra event per object there.
   */
  private async identityLock(tx: GraphTx, type: ObjectTypeRecord, key: string): Promise<(uid: string) => void> {
    if (!this.store.concurrentDeciders) return () => undefined;
    const stream = Streams.ontologyIdentity(tx.org, createHash('sha256').update(`${type.id}\u0000${key}`).digest('hex').slice(0, 32));
    const revision = await this.events.streamRevision(stream);
    if (revision >= 0) await this.store.catchUp();
    const expected: ExpectedRevision = revision < 0 ? 'no_stream' : revision;
    return (uid) => tx.emit(stream, 'OntologyIdentityClaimed', { uid, object_type_id: type.id, identity_key: key }, expected);
  }

  /** A versioned update of an object's authored content; identity never changes. */
  async update(
    tx: GraphTx,
    current: NodeRecord,
    type: ObjectTypeRecord,
    patch: { canonical_name?: string; fields?: Record<string, unknown>; aliases?: string[]; confidence?: number },
    reason: string,
    visible: (uid: string) => boolean,
  ): Promise<NodeRecord> {
    assertLive(current);
    const props = objectProps(current);
    const fieldsPatch = patch.fields ?? {};
    assertIdentityUnchanged(type, props.fields ?? {}, fieldsPatch);
    const { fields, references } = validateObjectFields(type, fieldsPatch, props.fields ?? {});
    await checkReferences(tx, references, visible);
    const canonical = patch.canonical_name ?? props.canonical_name;
    if (!type.identity_fields.length && normaliseText(canonical) !== normaliseText(props.canonical_name)) {
      // without identity fields the normalised name is the identity: a rename may not collide
      const key = `name:${normaliseText(canonical)}`;
      const claim = await this.identityLock(tx, type, key);
      const existing = this.existingWithIdentity(tx.org, type, key);
      if (existing && existing !== current.uid) throw OntologyErrors.duplicateObject(type.name, visible(existing) ? existing : null);
      claim(current.uid);
    }
    const next: NodeRecord = {
      ...current,
      label: canonical,
      confidence: patch.confidence ?? current.confidence,
      props: { ...props, canonical_name: canonical, fields, aliases: patch.aliases ?? props.aliases } as unknown as NodeRecord['props'],
      updated_at: tx.now,
      version: current.version + 1,
    };
    const changed = next;
    tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', changed, reason));
    return changed;
  }
}
