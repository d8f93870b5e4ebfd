import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

export const TOOL_NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;
export const MAX_DESCRIPTION = 10_000;
export const MAX_SCHEMA_BYTES = 64 * 1024;

export type ToolWarningCode = 'hidden_instructions' | 'invisible_characters' | 'long_description' | 'name_collision' | 'schema_too_large' | 'invalid_name';

export interface ToolWarning {
  code: ToolWarningCode;
  tool: string;
  message: string;
}

/** A tool as a server listed it (the members the hash covers), after the limits. */
export interface ScreenedTool {
  name: string;
  title: string | null;
  description: string | null;
  input_schema: Record<string, unknown> | null;
  output_schema: Record<string, unknown> | null;
  annotations: Record<string, unknown> | null;
  hash: string;
  warnings: ToolWarningCode[];
}

// format (Cf) characters cover zero-width, bidi controls and the tag block
const INVISIBLE_RE = /[\p{Cf}\u115F\u1160\u3164\uFFA0]/gu;
const HIDDEN_PATTERNS: RegExp[] = [
  /\bignore\s+(all\s+)?(the\s+)?(previous|prior|above|earlier)\b/i,
  /\bdisregard\s+(all\s+)?(the\s+)?(previous|prior|above|earlier|your)\b/i,
  /\b(do\s+not|don'?t|never)\s+(tell|inform|mention|reveal|show)\b[^.]{0,40}\buser\b/i,
  /<\s*\/?\s*(important|system|instructions?|secret)\b[^>]*>/i,
  /\byou\s+must\s+(first\s+)?(call|use|run|invoke)\b/i,
  /\b(system\s+prompt|prior\s+instructions)\b/i,
];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `"sha256:"` + hex SHA-256 of the JCS form of the tool's definition, absent members omitted. */
export function toolHash(raw: Record<string, unknown>): string {
  const def: Record<string, unknown> = {};
  for (const k of ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations']) if (raw[k] !== undefined) def[k] = raw[k];
  return 'sha256:' + createHash('sha256').update(canonicalJson(def)).digest('hex');
}

/** What models see of a text: invisible characters stripped. */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE_RE, '');
}

function textsOf(raw: Record<string, unknown>): string {
  const parts: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') parts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (isObject(v)) Object.entries(v).forEach(([k, x]) => (parts.push(k), walk(x)));
  };
  walk([raw.title, raw.description, raw.inputSchema, raw.outputSchema, raw.annotations]);
  return parts.join('\n');
}

/**
 * The tools of one `tools/list`, with the limits of REFERENCE §15.5 applied and each tool
 * screened (§15.6). Dropped tools (invalid names, oversized schemas) are reported, never kept;
 * warnings never block.
 */
export function screenTools(rawTools: unknown[]): { tools: ScreenedTool[]; warnings: ToolWarning[] } {
  const tools: ScreenedTool[] = [];
  const warnings: ToolWarning[] = [];
  const seen = new Set<string>();
  const names = rawTools.filter(isObject).map((t) => String(t.name ?? ''));
  for (const raw of rawTools) {
    if (!isObject(raw)) continue;
    const name = typeof raw.name === 'string' ? raw.name : '';
    const warn = (code: ToolWarningCode, message: string, list?: ToolWarningCode[]) => {
      warnings.push({ code, tool: name, message });
      list?.push(code);
    };
    if (!TOOL_NAME_RE.test(name)) {
      warn('invalid_name', 'the tool name is not 1-128 characters of [A-Za-z0-9_.-]; the tool is dropped');
      continue;
    }
    if (seen.has(name)) {
      warn('name_collision', 'another tool of this server has the same name; only the first is kept');
      continue;
    }
    const own: ToolWarningCode[] = [];
    let tooLarge = false;
    for (const key of ['inputSchema', 'outputSchema'] as const) {
      if (raw[key] !== undefined && Buffer.byteLength(JSON.stringify(raw[key])) > MAX_SCHEMA_BYTES) tooLarge = true;
    }
    if (tooLarge) {
      warn('schema_too_large', 'a schema of this tool is over 64 KiB; the tool is dropped');
      continue;
    }
    seen.add(name);
    const hash = toolHash(raw);
    let description = typeof raw.description === 'string' ? raw.description : null;
    const all = textsOf(raw);
    if (INVISIBLE_RE.test(all)) warn('invisible_characters', 'the definition holds invisible (format, bidi-control or tag) characters; they are stripped from what models see', own);
    INVISIBLE_RE.lastIndex = 0;
    const visible = visibleText(all);
    const otherTool = names.find((n) => n !== name && n.length >= 4 && new RegExp(`\\b${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(visible));
    if (HIDDEN_PATTERNS.some((re) => re.test(visible)) || otherTool)
      warn('hidden_instructions', otherTool ? `the definition addresses the model and names another tool (${otherTool})` : 'the definition holds text aimed at the model (instructions to ignore, conceal or obey)', own);
    if (description !== null && description.length > MAX_DESCRIPTION) {
      warn('long_description', `the description is over ${MAX_DESCRIPTION} characters; the rest is not kept`, own);
      description = description.slice(0, MAX_DESCRIPTION);
    }
    tools.push({
      name,
      title: typeof raw.title === 'string' ? raw.title : null,
      description,
      input_schema: isObject(raw.inputSchema) ? raw.inputSchema : null,
      output_schema: isObject(raw.outputSchema) ? raw.outputSchema : null,
      annotations: isObject(raw.annotations) ? raw.annotations : null,
      hash,
      warnings: own,
    });
  }
  return { tools, warnings };
}
