import { Errors } from '../errors';

/** REFERENCE §13.5. */
export type GovernanceMode = 'off' | 'shadow' | 'enforce';
export const GOVERNANCE_MODES: readonly GovernanceMode[] = ['off', 'shadow', 'enforce'];
export type AgentScopeWithoutGrants = 'organization' | 'none';
export const AGENT_SCOPES_WITHOUT_GRANTS: readonly AgentScopeWithoutGrants[] = ['organization', 'none'];

export interface GovernanceSettings {
  mode: GovernanceMode;
  agent_scope_without_grants: AgentScopeWithoutGrants;
  /** 1–720 */
  approval_deadline_hours: number;
  /** 1–168 */
  approval_ttl_hours: number;
}

export const DEFAULT_GOVERNANCE_SETTINGS: Readonly<GovernanceSettings> = Object.freeze({
  mode: 'enforce',
  agent_scope_without_grants: 'organization',
  approval_deadline_hours: 72,
  approval_ttl_hours: 24,
});

export const SETTINGS_LIMITS = { approval_deadline_hours: [1, 720], approval_ttl_hours: [1, 168] } as const;

export type SettingsChanges = { [K in keyof GovernanceSettings]?: { from: GovernanceSettings[K]; to: GovernanceSettings[K] } };

/**
 * The changes a PATCH makes (any subset of the four fields), or null when nothing changes.
 * Values are checked here too, so every writer refuses the same inputs (400 invalid_field).
 */
export function decideSettingsChange(current: GovernanceSettings, patch: Partial<GovernanceSettings>): SettingsChanges | null {
  if (patch.mode !== undefined && !GOVERNANCE_MODES.includes(patch.mode)) throw Errors.invalidField('mode', `mode must be one of: ${GOVERNANCE_MODES.join(', ')}`);
  if (patch.agent_scope_without_grants !== undefined && !AGENT_SCOPES_WITHOUT_GRANTS.includes(patch.agent_scope_without_grants))
    throw Errors.invalidField('agent_scope_without_grants', `agent_scope_without_grants must be one of: ${AGENT_SCOPES_WITHOUT_GRANTS.join(', ')}`);
  for (const f of ['approval_deadline_hours', 'approval_ttl_hours'] as const) {
    const v = patch[f];
    const [min, max] = SETTINGS_LIMITS[f];
    if (v !== undefined && (!Number.isInteger(v) || v < min || v > max)) throw Errors.invalidField(f, `${f} must be an integer from ${min} to ${max}`);
  }
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const k of Object.keys(DEFAULT_GOVERNANCE_SETTINGS) as (keyof GovernanceSettings)[]) {
    const to = patch[k];
    if (to !== undefined && to !== current[k]) changes[k] = { from: current[k], to };
  }
  return Object.keys(changes).length ? (changes as SettingsChanges) : null;
}

/** The settings after a change. */
export function applySettingsChanges(current: GovernanceSettings, changes: SettingsChanges): GovernanceSettings {
  const out = { ...current } as Record<string, unknown>;
  for (const [k, c] of Object.entries(changes)) out[k] = c!.to;
  return out as unknown as GovernanceSettings;
}
