import { EndpointDef } from './action';
import { ACTION_PROCEDURE } from './action-procedure';
import { ACTION_RISK } from './action-risk';
import { ACTION_SKILL } from './action-skill';
import { AGENT_EXECUTION } from './agent-execution';
import { AGENT_GOVERNANCE } from './agent-governance';
import { AGENT_PLAN } from './agent-plan';
import { EPISTEMIC_ARGUMENT } from './epistemic-argument';
import { EPISTEMIC_INQUIRY } from './epistemic-inquiry';
import { EPISTEMIC_STRUCTURE } from './epistemic-structure';
import { INTENT_COMMITMENT } from './intent-commitment';
import { INTENT_DELIBERATION } from './intent-deliberation';
import { MEMORY_CONFIG } from './memory-config';
import { MEMORY_DISTILL } from './memory-distill';
import { MEMORY_SESSION } from './memory-session';
import { REALITY_CAPTURE } from './reality-capture';
import { REALITY_SERIES } from './reality-series';

/** The cognitive write endpoints of REFERENCE §4.1–§4.17 (entity lives with the entity routes). */
export const COGNITIVE_ENDPOINTS: readonly EndpointDef[] = [
  REALITY_CAPTURE,
  REALITY_SERIES,
  EPISTEMIC_ARGUMENT,
  EPISTEMIC_INQUIRY,
  EPISTEMIC_STRUCTURE,
  INTENT_COMMITMENT,
  INTENT_DELIBERATION,
  ACTION_PROCEDURE,
  ACTION_RISK,
  ACTION_SKILL,
  MEMORY_SESSION,
  MEMORY_DISTILL,
  MEMORY_CONFIG,
  AGENT_PLAN,
  AGENT_GOVERNANCE,
  AGENT_EXECUTION,
];
