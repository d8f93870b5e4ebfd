import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The layering the code keeps: libs never import apps; the CLI and the worker compose libs,
 * never apps/api/src; an area of the API (a folder of apps/api/src other than platform) never
 * imports another area; the API's platform folder never imports an area; the libs form no
 * cycle among themselves. A regex over the
 * sources, resolving relative and @strata/* specifiers to repository paths.
 */

const ROOT = path.resolve(__dirname, '../../..');
const API = 'apps/api/src';

interface Import {
  from: string;
  to: string;
  spec: string;
}

const SPECIFIER = /\b(?:from\s*|import\s*\(\s*|require\s*\(\s*|jest\.mock\s*\(\s*|import\s+)['"]([^'"]+)['"]/g;

function sources(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) sources(rel, out);
    else if (e.name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

/** The repository path a specifier names (without extension), or null for a package. */
function target(from: string, spec: string): string | null {
  if (spec.startsWith('.')) return path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  const lib = /^@strata\/([a-z-]+)(\/.*)?$/.exec(spec);
  return lib ? `libs/${lib[1]}/src${lib[2] ?? ''}` : null;
}

function importsOf(files: { file: string; text: string }[]): Import[] {
  const out: Import[] = [];
  for (const { file, text } of files)
    for (const m of text.matchAll(SPECIFIER)) {
      const to = target(file, m[1]);
      if (to) out.push({ from: file, to, spec: m[1] });
    }
  return out;
}

/** The area of a path under apps/api/src (its first folder), or null. */
function areaOf(p: string): string | null {
  if (!p.startsWith(`${API}/`)) return null;
  const parts = p.slice(API.length + 1).split('/');
  return parts.length > 1 ? parts[0] : null;
}

export function boundaryViolations(imports: Import[]): string[] {
  const out: string[] = [];
  for (const i of imports) {
    const line = `${i.from} imports '${i.spec}'`;
    const fromArea = areaOf(i.from);
    const toArea = areaOf(i.to);
    if (i.from.startsWith('libs/') && i.to.startsWith('apps/')) out.push(`${line}: libs never import apps`);
    if ((i.from.startsWith('apps/cli/') || i.from.startsWith('apps/worker/')) && (i.to === API || i.to.startsWith(`${API}/`)))
      out.push(`${line}: the CLI and the worker compose libs, not apps/api/src`);
    if (fromArea === 'platform' && toArea !== null && toArea !== 'platform') out.push(`${line}: the platform imports no area`);
    if (fromArea !== null && fromArea !== 'platform' && toArea !== null && toArea !== 'platform' && fromArea !== toArea)
      out.push(`${line}: area ${fromArea} imports area ${toArea}`);
  }
  return out;
}

/** A cycle among the libs (one lib importing another that, through others, imports it), or null. */
export function libCycle(imports: Import[]): string[] | null {
  const edges = new Map<string, Set<string>>();
  for (const i of imports) {
    const a = /^libs\/([^/]+)\//.exec(i.from)?.[1];
    const b = /^libs\/([^/]+)\//.exec(`${i.to}/`)?.[1];
    if (a && b && a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b));
  }
  const done = new Set<string>();
  const visit = (lib: string, trail: string[]): string[] | null => {
    if (trail.includes(lib)) return [...trail.slice(trail.indexOf(lib)), lib];
    if (done.has(lib)) return null;
    for (const next of edges.get(lib) ?? []) {
      const cycle = visit(next, [...trail, lib]);
      if (cycle) return cycle;
    }
    done.add(lib);
    return null;
  };
  for (const lib of edges.keys()) {
    const cycle = visit(lib, []);
    if (cycle) return cycle;
  }
  return null;
}

describe('import boundaries', () => {
  const files = [...sources('apps'), ...sources('libs')].map((file) => ({ file, text: fs.readFileSync(path.join(ROOT, file), 'utf8') }));
  const imports = importsOf(files);

  it('reads the whole tree (the app module importing its areas is found)', () => {
    expect(files.length).toBeGreaterThan(500);
    expect(imports).toContainEqual(expect.objectContaining({ from: `${API}/app.module.ts`, to: `${API}/graph/graph.module` }));
  });

  it('no lib imports an app, the CLI and the worker import nothing from apps/api/src, and no area imports another', () => {
    expect(boundaryViolations(imports)).toEqual([]);
  });

  it('the libs import one another without a cycle', () => {
    expect(libCycle(imports)).toBeNull();
  });

  it('finds a cycle among libs', () => {
    const cyclic = importsOf([
      { file: 'libs/a/src/x.ts', text: "import { B } from '@strata/b/y';" },
      { file: 'libs/b/src/y.ts', text: "import { C } from '@strata/c';" },
      { file: 'libs/c/src/index.ts', text: "import { A } from '@strata/a/x';" },
    ]);
    expect(libCycle(cyclic)).toEqual(['a', 'b', 'c', 'a']);
    expect(libCycle(cyclic.slice(0, 2))).toBeNull();
  });

  it('names each kind of crossing', () => {
    const crossing = importsOf([
      { file: 'libs/platform/src/x.ts', text: "import { A } from '../../../apps/api/src/graph/a';" },
      { file: 'apps/cli/src/x.ts', text: "import { B } from '../../api/src/platform/b';" },
      { file: 'apps/worker/src/x.ts', text: "const c = await import('../../api/src/retrieval/c');" },
      { file: `${API}/platform/http/x.ts`, text: "import { D } from '../../jobs/d';" },
      { file: `${API}/retrieval/x.ts`, text: "export { E } from '../graph/e';" },
      { file: `${API}/graph/x.ts`, text: "import { F } from './f';\nimport { G } from '@strata/platform/g';\nimport { H } from '../platform/http/h';" },
    ]);
    expect(boundaryViolations(crossing)).toEqual([
      "libs/platform/src/x.ts imports '../../../apps/api/src/graph/a': libs never import apps",
      "apps/cli/src/x.ts imports '../../api/src/platform/b': the CLI and the worker compose libs, not apps/api/src",
      "apps/worker/src/x.ts imports '../../api/src/retrieval/c': the CLI and the worker compose libs, not apps/api/src",
      `${API}/platform/http/x.ts imports '../../jobs/d': the platform imports no area`,
      `${API}/retrieval/x.ts imports '../graph/e': area retrieval imports area graph`,
    ]);
  });
});
