import { Errors } from '../errors';
import { Body, readString } from '../validation';
import { CLASSIFICATIONS, Classification, isClassification } from './classification';
import { SpaceGrantSetData, SpaceGrantState } from './governance-events';
import { SpaceAccessLevel } from './space-access';

const PRINCIPAL_UID = /^(user|agent):([A-Za-z0-9][A-Za-z0-9._:@-]{0,127})$/;

export interface SpaceGrantInput {
  principal_uid: string;
  principal_kind: 'user' | 'agent';
  principal_id: string;
  access: SpaceAccessLevel;
  classification_ceiling: Classification | null;
}

/** `user:<id>` or `agent:<id>`; any other form is 400 invalid_field (REFERENCE §13.2). */
export function parseGrantPrincipal(raw: unknown, field = 'principal_uid'): { uid: string; kind: 'user' | 'agent'; id: string } {
  if (raw === undefined || raw === null || raw === '') throw Errors.missingField(field);
  const m = typeof raw === 'string' ? PRINCIPAL_UID.exec(raw) : null;
  if (!m) throw Errors.invalidField(field, `${field} must be user:<id> or agent:<id>`);
  return { uid: raw as string, kind: m[1] as 'user' | 'agent', id: m[2] };
}

/** The body of POST /v1/spaces/{space_uid}/grants, validated. */
export function readSpaceGrantInput(body: Body): SpaceGrantInput {
  const p = parseGrantPrincipal(body.principal_uid);
  const access = readString(body, 'access', { required: true });
  if (access !== 'read' && access !== 'write') throw Errors.invalidField('access', 'access must be read or write');
  const ceiling = body.classification_ceiling;
  if (ceiling !== undefined && ceiling !== null && !isClassification(ceiling))
    throw Errors.invalidField('classification_ceiling', `classification_ceiling must be null or one of: ${CLASSIFICATIONS.join(', ')}`);
  return { principal_uid: p.uid, principal_kind: p.kind, principal_id: p.id, access, classification_ceiling: (ceiling ?? null) as Classification | null };
}

/** The event setting a grant (a replacement names what it replaces). */
export function decideSpaceGrant(
  org: string,
  spaceUid: string,
  input: SpaceGrantInput,
  previous: SpaceGrantState | null,
  by: string,
  now: number,
): SpaceGrantSetData {
  return {
    org_id: org,
    space_uid: spaceUid,
    principal_uid: input.principal_uid,
    access: input.access,
    classification_ceiling: input.classification_ceiling,
    previous,
    granted_by: by,
    at: now,
  };
}
