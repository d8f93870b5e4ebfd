import { ConnectionAuthInput, MAX_TOOLS, MCP_URL_MAX, readConnectionAuth, readToolApprovals } from '@strata/domain/mcp';
import { DomainError, Errors } from '@strata/domain/errors';
import { FieldRule } from '../platform/http/dto/field.decorator';

/** An MCP server URL: a string here; scheme and address rules need the configuration (handler). */
export const McpUrl: FieldRule<string> = {
  required: true,
  check: (v, f) => {
    if (typeof v !== 'string') return Errors.invalidField(f, `${f} must be a string`);
    if (v.trim() === '') return Errors.missingField(f);
    if (v.length > MCP_URL_MAX) return Errors.invalidField(f, `${f} must be at most ${MCP_URL_MAX} characters`);
    return null;
  },
  parse: (v) => (v as string).trim(),
  openapi: { type: String, maxLength: MCP_URL_MAX, description: 'Streamable HTTP endpoint of the MCP server (https://)', example: 'https://tools.example.com/mcp' },
};

/** Connection credentials (REFERENCE §15.4); errors name the field, never a secret value. */
export function McpAuth(required: boolean): FieldRule<ConnectionAuthInput> {
  return {
    required,
    check: (v, f) => {
      try {
        readConnectionAuth(v, f);
        return null;
      } catch (err) {
        if (err instanceof DomainError) return err;
        throw err;
      }
    },
    parse: (v) => readConnectionAuth(v),
    openapi: {
      type: Object,
      description: '`{type:"none"}`, `{type:"bearer", token}`, `{type:"headers", headers:{name: value}}` or `{type:"oauth", client_id?, client_secret?, scopes?}`',
      example: { type: 'bearer', token: '…' },
    },
  };
}

/** `tool_approvals`: `{tool: "always"|"never"}`, replaced whole. */
export const ToolApprovals: FieldRule<Record<string, 'always' | 'never'>> = {
  required: false,
  check: (v, f) => {
    try {
      readToolApprovals(v, f);
      return null;
    } catch (err) {
      if (err instanceof DomainError) return err;
      throw err;
    }
  },
  parse: (v) => readToolApprovals(v),
  openapi: { type: Object, description: '`{tool: "always"|"never"}` for `approval_mode: "per_tool"`', example: { read_file: 'never' } },
};

/** `acknowledge_drift`: tool names or `"all"`. */
export const AcknowledgeDrift: FieldRule<string[] | 'all'> = {
  required: false,
  check: (v, f) => {
    if (v === 'all') return null;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x === '')) return Errors.invalidField(f, `${f} must be "all" or a list of tool names`);
    if (v.length > MAX_TOOLS) return Errors.invalidField(f, `${f} takes at most ${MAX_TOOLS} names`);
    return null;
  },
  openapi: { oneOf: [{ type: 'string', enum: ['all'] }, { type: 'array', items: { type: 'string' } }], description: 'tools whose drift is accepted: `"all"` or names' },
};

/** A field that can never change (`url`, `auth`, `slug` on PATCH): 422 immutable_field. */
export function Immutable(type: 'string' | 'object'): FieldRule<never> {
  return {
    required: false,
    check: (_v, f) => Errors.immutableField(f),
    openapi: { type: type === 'string' ? String : Object, description: 'cannot be changed (credentials change through reauthorize): 422 immutable_field' },
  };
}
