import { Injectable } from '@nestjs/common';
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
import { NodeRecord } from '@strata/domain/records';
import { createNode } from '@strata/platform/unit-of-work/graph-ops';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { OntologyStore } from '../ontology-store';
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
  constructor(private readonly store: OntologyStore) {}

  /** The live object with the same type and identity, if any (REFERENCE §11 duplicate rule). */
  existingWithIdentity(org: string, type: ObjectTypeRecord, key: string): string | null {
    return this.store.read.objectsWithIdentity(org, type.id, key)[0] ?? null;
  }

  async create(tx: GraphTx, type: ObjectTypeRecord, o: ObjectToCreate, visible: (uid: string) => boolean): Promise<NodeRecord> {
    const { fields, references } = validateObjectFields(type, o.fields, null);
    await checkReferences(tx, references, visible);
    const { identity, key } = objectIdentity(type, o.canonical_name, fields, o.identity);
    if (!o.allow_duplicate) {
      const existing = this.existingWithIdentity(tx.org, type, key);
      if (existing) throw OntologyErrors.duplicateObject(type.name, existing);
    }
    const props = domainObjectProps(type, { canonical_name: o.canonical_name, fields, aliases: o.aliases, identity, proposal_id: o.proposal_id, source_uids: o.source_uids });
    return createNode(tx, { label: o.canonical_name, confidence: o.confidence, props: props as unknown as Record<string, unknown> }, {
      forcedType: type.name,
      forcedLayer: 'ontology',
    });
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
      const existing = this.existingWithIdentity(tx.org, type, `name:${normaliseText(canonical)}`);
      if (existing && existing !== current.uid) throw OntologyErrors.duplicateObject(type.name, existing);
    }
    const next: NodeRecord = {
      ...current,
      label: canonical,
      confidence: patch.confidence ?? current.confidence,
      props: { ...props, canonical_name: canonical, fields, aliases: patch.aliases ?? props.aliases } as unknown as NodeRecord['props'],
      updated_at: tx.now,
      version: current.version + 1,
    };
    return tx.putNode(next, 'NodeUpdated', reason);
  }
}
