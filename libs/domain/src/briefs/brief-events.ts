import type { StoredBriefVersion } from './brief-versions';
import { ProjectRole } from './project-role';
import { BriefingEventTypes } from './briefing-events';

/**
 * Events of Projects' briefs and grants (REFERENCE §12.9). A version is immutable and carried
 * whole by its event, so the history is the log; the read model only indexes it.
 */
export const BriefEventTypes = {
  BriefVersionCreated: 'BriefVersionCreated',
  BriefRegenerationFailed: 'BriefRegenerationFailed',
  ProjectGrantSet: 'ProjectGrantSet',
  ProjectGrantRevoked: 'ProjectGrantRevoked',
  ...BriefingEventTypes,
} as const;
export type BriefEventType = (typeof BriefEventTypes)[keyof typeof BriefEventTypes];

/** The whole version, plus the ids its last regeneration produced (kept for unpin, never shown). */
export interface BriefVersionCreatedData extends StoredBriefVersion {
  org_id: string;
}

export interface BriefRegenerationFailedData {
  org_id: string;
  project_uid: string;
  job_id: string;
  code: string;
  message: string;
  at: number;
}

export interface ProjectGrantSetData {
  org_id: string;
  project_uid: string;
  principal_uid: string;
  role: ProjectRole;
  previous_role: ProjectRole | null;
  granted_by: string;
  at: number;
}

export interface ProjectGrantRevokedData {
  org_id: string;
  project_uid: string;
  principal_uid: string;
  reason: 'revoked' | 'member_removed';
  revoked_by: string;
  at: number;
}

export const BriefStreams = {
  brief: (org: string, projectUid: string) => `brief-${org}:${projectUid}`,
  projectGrants: (org: string, projectUid: string) => `project-grants-${org}:${projectUid}`,
};

/** Streams the briefs read model applies (in servers mode, beside the accounts in each replica). */
export const BRIEF_STREAM_PREFIXES: readonly string[] = ['brief-', 'project-grants-', 'briefing-'];
