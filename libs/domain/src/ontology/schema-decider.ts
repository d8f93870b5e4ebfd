import { Errors } from '../errors';
import { OntologySchemaRecord, SchemaStatus, SemanticValidationMode } from './ontology-records';
import { OntologyErrors } from './ontology-errors';

/**
 * The schema lifecycle of REFERENCE §11, as a table: what each move does from each status.
 * `apply` moves the schema, `noop` returns it unchanged, `refuse` is 409 `invalid_transition`.
 * Activation from draft also needs at least one object type (checked by `decideActivate`).
 */
export type SchemaMove = 'activate' | 'deprecate' | 'archive' | 'edit';
type Outcome = 'apply' | 'noop' | 'refuse';

export const SCHEMA_LIFECYCLE: Readonly<Record<SchemaStatus, Readonly<Record<SchemaMove, Outcome>>>> = {
  draft: { activate: 'apply', deprecate: 'refuse', archive: 'apply', edit: 'apply' },
  active: { activate: 'noop', deprecate: 'apply', archive: 'apply', edit: 'apply' },
  deprecated: { activate: 'apply', deprecate: 'noop', archive: 'apply', edit: 'refuse' },
  archived: { activate: 'refuse', deprecate: 'refuse', archive: 'noop', edit: 'refuse' },
};

const MOVES: readonly SchemaMove[] = ['activate', 'deprecate', 'archive', 'edit'];

/** The outcome of a move, or 409 `invalid_transition` naming the moves the status allows. */
export function schemaMove(status: SchemaStatus, move: SchemaMove): 'apply' | 'noop' {
  const outcome = SCHEMA_LIFECYCLE[status][move];
  if (outcome === 'refuse') {
    const allowed = MOVES.filter((m) => SCHEMA_LIFECYCLE[status][m] === 'apply');
    throw Errors.invalidTransition(`cannot ${move === 'edit' ? 'edit' : move} a ${status} schema`, status, allowed);
  }
  return outcome;
}

export interface SchemaInput {
  name: string;
  description: string | null;
}

export function decideCreateSchema(input: SchemaInput, id: string, org: string, by: string, now: number): OntologySchemaRecord {
  return {
    id,
    org_id: org,
    name: input.name,
    description: input.description,
    status: 'draft',
    version: 1,
    propose_status: null,
    propose_job_id: null,
    propose_error: null,
    semantic_validation_mode: 'off',
    created_by: by,
    updated_by: by,
    created_at: now,
    updated_at: now,
    activated_at: null,
    archived_at: null,
  };
}

export interface SchemaPatch {
  name?: string;
  description?: string;
  semantic_validation_mode?: SemanticValidationMode;
}

/** PATCH of a draft or active schema's metadata; deprecated and archived ones are 409. */
export function decideUpdateSchema(s: OntologySchemaRecord, patch: SchemaPatch, by: string, now: number): OntologySchemaRecord {
  schemaMove(s.status, 'edit');
  return {
    ...s,
    name: patch.name ?? s.name,
    description: patch.description ?? s.description,
    semantic_validation_mode: patch.semantic_validation_mode ?? s.semantic_validation_mode,
    updated_by: by,
    updated_at: now,
  };
}

/**
 * Activation: null when already active (no-op). A draft needs at least one live object type
 * (422); a deprecated schema comes back as it was.
 */
export function decideActivate(s: OntologySchemaRecord, liveObjectTypes: number, by: string, now: number): OntologySchemaRecord | null {
  if (schemaMove(s.status, 'activate') === 'noop') return null;
  if (liveObjectTypes < 1)
    throw OntologyErrors.validationFailed([{ path: 'object_types', message: 'a schema needs at least one object type to be activated' }]);
  return { ...s, status: 'active', activated_at: now, updated_by: by, updated_at: now };
}

export function decideDeprecate(s: OntologySchemaRecord, by: string, now: number): OntologySchemaRecord | null {
  if (schemaMove(s.status, 'deprecate') === 'noop') return null;
  return { ...s, status: 'deprecated', updated_by: by, updated_at: now };
}

export function decideArchive(s: OntologySchemaRecord, by: string, now: number): OntologySchemaRecord | null {
  if (schemaMove(s.status, 'archive') === 'noop') return null;
  return { ...s, status: 'archived', archived_at: now, updated_by: by, updated_at: now };
}

/**
 * A type change on the schema: allowed while draft or active (409 otherwise); while active it
 * bumps the schema's version (REFERENCE §11 lifecycle table).
 */
export function schemaAfterTypeChange(s: OntologySchemaRecord, by: string, now: number): OntologySchemaRecord {
  schemaMove(s.status, 'edit');
  return { ...s, version: s.status === 'active' ? s.version + 1 : s.version, updated_by: by, updated_at: now };
}

/** The workspace default: the most recently activated of the active schemas (ties: id). */
export function defaultSchema<S extends Pick<OntologySchemaRecord, 'id' | 'status' | 'activated_at'>>(schemas: readonly S[]): S | null {
  let best: S | null = null;
  for (const s of schemas) {
    if (s.status !== 'active') continue;
    if (!best || (s.activated_at ?? 0) > (best.activated_at ?? 0) || ((s.activated_at ?? 0) === (best.activated_at ?? 0) && s.id > best.id)) best = s;
  }
  return best;
}
