import { projectionCatalogue } from '../../../api/src/operations/projections/projection-set';
import { CliError } from '../support/cli-error';

/** The named projections, checked against the code's; none named means all of them. */
export function resolveProjectionNames(args: string[]): { names: string[]; all: string[] } {
  const all = projectionCatalogue().map((p) => p.name);
  const unknown = args.filter((a) => !all.includes(a));
  if (unknown.length) {
    const vectors = unknown.includes('vectors') ? ' (the vector index is rebuilt by the service from its own checkpoint)' : '';
    throw new CliError(`unknown projection ${unknown.map((u) => `'${u}'`).join(', ')}; projections: ${all.join(', ')}${vectors}`);
  }
  const names = args.length ? all.filter((n) => args.includes(n)) : all;
  return { names, all };
}
