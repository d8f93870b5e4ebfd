import { AuditRecord } from '@strata/domain/audit/audit-record';

export type AuditFormat = 'table' | 'jsonl';
export const AUDIT_FORMATS: readonly AuditFormat[] = ['table', 'jsonl'];

interface Column {
  title: string;
  width: number;
  value: (r: AuditRecord) => string;
}

/** Fixed widths, so a streamed table lines up without reading ahead; the last column is not cut. */
const COLUMNS: Column[] = [
  { title: 'POSITION', width: 9, value: (r) => String(r.position) },
  { title: 'TIME', width: 24, value: (r) => r.at },
  { title: 'PRINCIPAL', width: 28, value: (r) => r.principal },
  // the credential used: identity, from the metadata; a user's JWT has none
  { title: 'VIA', width: 24, value: (r) => (r.credential_id ? `key:${r.credential_id}` : '-') },
  // attribution only (the key's bound agent, or the request's own agent_id): never an identity
  { title: 'AGENT', width: 16, value: (r) => r.agent_id ?? '-' },
  { title: 'ACTION', width: 22, value: (r) => r.action },
  { title: 'TARGET', width: 38, value: (r) => r.target ?? '-' },
  { title: 'REQUEST', width: 0, value: (r) => r.request_id || '-' },
];

function cell(text: string, width: number): string {
  if (width === 0) return text;
  const cut = text.length > width ? text.slice(0, width - 1) + '…' : text;
  return cut.padEnd(width);
}

export function tableHeader(): string {
  return COLUMNS.map((c) => cell(c.title, c.width)).join(' ');
}

export function tableRow(r: AuditRecord): string {
  return COLUMNS.map((c) => cell(c.value(r), c.width)).join(' ');
}

/** One output line for a record (no newline). */
export function formatRecord(r: AuditRecord, format: AuditFormat): string {
  return format === 'jsonl' ? JSON.stringify(r) : tableRow(r);
}
