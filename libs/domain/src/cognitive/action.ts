import { Errors } from '../errors';
import { Body } from '../validation';
import { CognitiveView } from './cognitive-view';
import { ActionContext, Decision } from './decision';
import type { TriggerDef } from './triggers';

/**
 * One action of a cognitive endpoint. `decide` validates in the order of REFERENCE §4.0
 * (required → types → props → uid syntax → liveness → host types → state guards), reads
 * through the view, and returns the changes; it never writes.
 */
export interface ActionDef {
  /** false for get_* / list / window…: read-only credentials may call them */
  readonly writes: boolean;
  /** what a create action makes, for the OpenAPI document: the node type and its trigger fields */
  readonly creates?: { readonly nodeType: string; readonly triggers: readonly TriggerDef[]; readonly labelRequired: boolean };
  decide(body: Body, view: CognitiveView, ctx: ActionContext, action: string): Promise<Decision>;
}

export interface EndpointDef {
  /** route path without the leading slash, e.g. `intent/commitment` */
  readonly path: string;
  readonly actions: Readonly<Record<string, ActionDef>>;
  /** endpoints with a single operation ignore `action` and run this one */
  readonly single?: string;
}

/** Step 2 of §4.0: `action` missing or unknown → 400 unknown_action with valid_actions. */
export function resolveAction(endpoint: EndpointDef, body: Body): { name: string; def: ActionDef } {
  if (endpoint.single) return { name: endpoint.single, def: endpoint.actions[endpoint.single] };
  const name = body.action;
  const valid = Object.keys(endpoint.actions);
  if (typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(endpoint.actions, name)) throw Errors.unknownAction(name, valid);
  return { name, def: endpoint.actions[name] };
}

export function reads(decide: ActionDef['decide']): ActionDef {
  return { writes: false, decide };
}

export function writes(decide: ActionDef['decide']): ActionDef {
  return { writes: true, decide };
}
