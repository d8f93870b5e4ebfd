import { NotFoundException } from '@nestjs/common';
import { AgentScope } from '@strata/domain/agents';
import { Errors } from '@strata/domain/errors';
import { isWellFormedUid } from '@strata/domain/validation';
import { FieldRule } from '../platform/http/dto/field.decorator';

/** The managed agents' own field kinds for their DTOs (REFERENCE §16). */

interface Doc {
  description?: string;
  example?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function Bool(opts: Doc & { required?: boolean } = {}): FieldRule<boolean> {
  return {
    required: !!opts.required,
    check: (v, f) => (typeof v === 'boolean' ? null : Errors.invalidField(f, `${f} must be a boolean`)),
    openapi: { type: Boolean, description: opts.description, example: opts.example },
  };
}

/** A JSON object of at most `maxBytes` of JSON text (session and message metadata: 16 KiB). */
export function JsonObject(opts: Doc & { maxBytes: number }): FieldRule<Record<string, unknown>> {
  return {
    required: false,
    check: (v, f) => {
      if (!isObject(v)) return Errors.invalidField(f, `${f} must be an object`);
      if (Buffer.byteLength(JSON.stringify(v)) > opts.maxBytes) return Errors.invalidField(f, `${f} must be at most ${opts.maxBytes} bytes of JSON`);
      return null;
    },
    openapi: { type: 'object', additionalProperties: true, description: opts.description, example: opts.example },
  };
}

/** `{space_uids?, project_uids?}`: the Spaces and Projects an agent reaches (whole graph when empty). */
export const ScopeField: FieldRule<AgentScope> = {
  required: false,
  check: (v, f) => {
    if (!isObject(v)) return Errors.invalidField(f, `${f} must be an object with space_uids and project_uids`);
    for (const k of Object.keys(v)) if (k !== 'space_uids' && k !== 'project_uids') return Errors.invalidField(`${f}.${k}`, `${f} takes space_uids and project_uids only`);
    for (const k of ['space_uids', 'project_uids'] as const) {
      const list = v[k];
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) return Errors.invalidField(`${f}.${k}`, `${f}.${k} must be an array of uids`);
      if (list.length > 1000) return Errors.invalidField(`${f}.${k}`, `${f}.${k} takes at most 1000 entries`);
      const bad = list.findIndex((x) => !isWellFormedUid(x as string));
      if (bad >= 0) return Errors.invalidUid(`${f}.${k}[${bad}]`);
    }
    return null;
  },
  parse: (v) => {
    const o = v as Record<string, unknown>;
    const out: AgentScope = {};
    if (Array.isArray(o.space_uids)) out.space_uids = o.space_uids as string[];
    if (Array.isArray(o.project_uids)) out.project_uids = o.project_uids as string[];
    return out;
  },
  openapi: {
    type: 'object',
    properties: { space_uids: { type: 'array', items: { type: 'string' } }, project_uids: { type: 'array', items: { type: 'string' } } },
    description: 'Spaces and Projects the agent reaches; the whole graph when empty',
  },
};

/** A text of `min`–`max` characters, not trimmed (message contents keep their whitespace). */
export function Content(opts: Doc & { required?: boolean; max: number }): FieldRule<string> {
  return {
    required: !!opts.required,
    check: (v, f) => {
      if (typeof v !== 'string') return Errors.invalidField(f, `${f} must be a string`);
      if (!v.trim()) return opts.required ? Errors.missingField(f) : Errors.invalidField(f, `${f} must not be empty`);
      if (v.length > opts.max && [...v].length > opts.max) return Errors.invalidField(f, `${f} must be at most ${opts.max} characters`);
      return null;
    },
    openapi: { type: String, maxLength: opts.max, description: opts.description, example: opts.example },
  };
}

/** `/v1/agents/<segment>` paths that are never an agent id (REFERENCE §16.1). */
export const RESERVED_AGENT_SEGMENTS: readonly string[] = ['templates', 'sessions', 'schedules', 'activity'];

/**
 * An agent id from `/v1/agents/:id…`: a reserved segment there is a route of its own reached
 * with another method, so it answers as the router does for an unrouted method (405 with
 * `Allow`, from the route table), never as an agent named "schedules".
 */
export function agentPathId(value: string, req: { method: string; url: string }): string {
  if (RESERVED_AGENT_SEGMENTS.includes(value)) throw new NotFoundException(`Cannot ${req.method} ${req.url.split('?')[0]}`);
  return value;
}

/** A /v1 resource id from the path: any other shape names nothing (404 rather than 400). */
export function pathId(value: string): string {
  return value;
}
