import * as fs from 'node:fs';
import * as path from 'node:path';

/** The package version, found by walking up from here (works from src/ under jest and from dist/). */
function findVersion(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'strata' && pkg.version) return pkg.version;
    }
  }
  return '0.0.0';
}

export const VERSION: string = findVersion();
