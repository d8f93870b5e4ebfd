import { ConnectionAuthInput, MCP_URL_MAX, readConnectionAuth } from '@strata/domain/mcp';
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
