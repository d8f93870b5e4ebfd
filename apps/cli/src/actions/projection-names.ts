import { SERVER_PROJECTION_NAMES } from '@strata/projections/server/server-projection';
import { projectionCatalogue } from '@strata/platform/projections/projection-set';
import { VECTORS_PROJECTION } from '@strata/vector-index/embedded/vector-handover-files';
import { PROJECTIONS } from '@strata/projections/registry/projection-registry';
import { CliError } from '../support/cli-error';

/** The SQLite projections, for help texts: read from the registry, so a help never lists one the code lacks, or misses one. */
export const SQLITE_PROJECTION_LIST = PROJECTIONS.map((p) => p.name).join(', ');

export interface ProjectionNames {
  /** the SQLite projections named, in application order */
  names: string[];
  /** every SQLite projection */
  all: string[];
  /** whether the vector index (`vectors`) is named */
  vectors: boolean;
}

/**
 * The named projections, checked against the code's: the SQLite ones and the vector index;
 * none named means all of them.
 */
export function resolveProjectionNames(args: string[]): ProjectionNames {
  const all = projectionCatalogue().map((p) => p.name);
  const known = [...all, VECTORS_PROJECTION];
  const unknown = args.filter((a) => !known.includes(a));
  if (unknown.length) throw new CliError(`unknown projection ${unknown.map((u) => `'${u}'`).join(', ')}; projections: ${known.join(', ')}`);
  const names = args.length ? all.filter((n) => args.includes(n)) : all;
  return { names, all, vectors: !args.length || args.includes(VECTORS_PROJECTION) };
}

/** Servers mode: the named projections the worker runs (graph, text, vectors); none named means all. */
export function resolveServerProjectionNames(args: string[], known: readonly string[] = SERVER_PROJECTION_NAMES): string[] {
  const unknown = args.filter((n) => !known.includes(n));
  if (unknown.length) throw new CliError(`unknown projection ${unknown.map((u) => `'${u}'`).join(', ')}; projections: ${known.join(', ')}`);
  return args.length ? known.filter((n) => args.includes(n)) : [...known];
}
