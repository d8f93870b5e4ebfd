import type { ObjectTypeRecord, OntologySchemaRecord, RelationTypeRecord } from './ontology-records';
import type { ProposalRecord } from './proposal-record';

/**
 * Operational-ontology events. A schema and its object and relation types are one stream
 * (`ontschema-<org>:<id>`): names are unique within a schema and every type change bumps
 * the schema's version, so they are decided together. Each proposal is its own stream
 * (`ontproposal-<org>:<id>`). Every event carries the full record as of the change, so the
 * read model is a plain upsert and a rebuild gives the same rows. Domain objects and their
 * relations are graph nodes and edges (NodeCreated, EdgeCreated…), not events of this area.
 */
export const OntologyEventTypes = {
  OntologySchemaCreated: 'OntologySchemaCreated',
  OntologySchemaUpdated: 'OntologySchemaUpdated',
  OntologySchemaActivated: 'OntologySchemaActivated',
  OntologySchemaDeprecated: 'OntologySchemaDeprecated',
  OntologySchemaArchived: 'OntologySchemaArchived',
  OntologyObjectTypeAdded: 'OntologyObjectTypeAdded',
  OntologyObjectTypeUpdated: 'OntologyObjectTypeUpdated',
  OntologyObjectTypeArchived: 'OntologyObjectTypeArchived',
  OntologyRelationTypeAdded: 'OntologyRelationTypeAdded',
  OntologyRelationTypeUpdated: 'OntologyRelationTypeUpdated',
  OntologyRelationTypeArchived: 'OntologyRelationTypeArchived',
  OntologyProposalCreated: 'OntologyProposalCreated',
  OntologyProposalEdited: 'OntologyProposalEdited',
  OntologyProposalApproved: 'OntologyProposalApproved',
  OntologyProposalRejected: 'OntologyProposalRejected',
  OntologyProposalApplied: 'OntologyProposalApplied',
  OntologyProposalApplyFailed: 'OntologyProposalApplyFailed',
  OntologyIdentityClaimed: 'OntologyIdentityClaimed',
  OntologyRelationSlotClaimed: 'OntologyRelationSlotClaimed',
} as const;
export type OntologyEventType = (typeof OntologyEventTypes)[keyof typeof OntologyEventTypes];

/** A schema's lifecycle or metadata change: the schema as of the change. */
export interface OntologySchemaChangedData {
  schema: OntologySchemaRecord;
}

/** An object type added, changed or archived, with its schema (whose version moved). */
export interface OntologyObjectTypeChangedData {
  schema: OntologySchemaRecord;
  object_type: ObjectTypeRecord;
}

export interface OntologyRelationTypeChangedData {
  schema: OntologySchemaRecord;
  relation_type: RelationTypeRecord;
}

/** A proposal created or moved along its lifecycle: the record as of the change. */
export interface OntologyProposalChangedData {
  proposal: ProposalRecord;
}

/**
 * An object created under an identity key (`ontidentity-<org>:<key>`). The stream is the
 * claim's lock, not its state: a create appends here expecting the revision it saw, so two
 * replicas deciding the same identity at once cannot both commit; which objects hold the key
 * is still read from the object index.
 */
export interface OntologyIdentityClaimedData {
  uid: string;
  object_type_id: string;
  identity_key: string;
}

/**
 * A relation edge created under a cardinality limit, on the stream of the endpoint it fills
 * (`ontrelslot-<org>:<digest>`; `side` "from", "to", or "either" for a symmetric relation).
 * Servers mode only, like identities: of two replicas filling the same endpoint at once one
 * append commits, the other is refused and decided again. The claims name the edges holding
 * the endpoint; an edge tombstoned or purged since frees it.
 */
export interface OntologyRelationSlotClaimedData {
  edge_uid: string;
  relation_type_id: string;
  endpoint_uid: string;
  side: 'from' | 'to' | 'either';
}
