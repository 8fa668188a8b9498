// The import graph of src/ and widget/ (type-only imports included) against the layer order in
// test/architecture.layers.json: no import points to a later layer, no file reaches itself
// through imports, and no feature imports another feature (one feature asks another through
// ctx.features). What still breaks a rule is listed there exactly, so the lists only shrink.
import { readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './helpers/source-files.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SPEC = JSON.parse(readFileSync(join(ROOT, 'test/architecture.layers.json'), 'utf8')) as {
  layers: Array<{ name: string; paths: string[] }>;
  features: string[];
  remaining: { upward: string[]; cycles: string[]; features: string[] };
};

const files = sourceFiles;

/** Every module specifier of a file, as TypeScript's own scanner reads them (comments and strings
 * cannot fool it): import/export ... from, side-effect imports, import(). */
function specifiers(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

function resolveImport(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = relative(ROOT, resolve(ROOT, dirname(from), spec)).split('\\').join('/');
  for (const candidate of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.tsx`, `${base}/index.ts`]) {
    if (existsSync(join(ROOT, candidate)) && statSync(join(ROOT, candidate)).isFile() && /\.(ts|tsx)$/.test(candidate)) return candidate;
  }
  return null;
}

/** The layer of the longest path that matches the file (a folder ends with '/'). */
function layerOf(file: string): number {
  let best = -1;
  let length = -1;
  SPEC.layers.forEach((l, i) => {
    for (const p of l.paths) {
      if ((p.endsWith('/') ? file.startsWith(p) : file === p) && p.length > length) [best, length] = [i, p.length];
    }
  });
  if (best < 0) throw new Error(`${file} is in no layer of test/architecture.layers.json`);
  return best;
}

const all = [...files('src'), ...files('widget')];
const graph = new Map<string, string[]>(all.map((f) => [f, specifiers(readFileSync(join(ROOT, f), 'utf8')).map((s) => resolveImport(f, s)).filter((t): t is string => t !== null)]));

/** The feature folder a file is in, or null for a file outside every feature. */
function featureOf(file: string): string | null {
  return SPEC.features.find((f) => file.startsWith(f)) ?? null;
}

/** Strongly connected components of more than one file (Tarjan), each as its sorted files. */
function cycles(): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

describe('architecture', () => {
  it('has every file of src/ and widget/ in a layer', () => {
    for (const f of all) expect(() => layerOf(f)).not.toThrow();
  });

  it('has no import pointing up the layer order but the listed ones, and every listed one still exists', () => {
    const upward: string[] = [];
    for (const [from, targets] of graph) {
      for (const to of targets) if (layerOf(to) > layerOf(from)) upward.push(`${from} -> ${to}`);
    }
    const actual = [...new Set(upward)].sort();
    expect({ notListed: actual.filter((v) => !SPEC.remaining.upward.includes(v)), gone: SPEC.remaining.upward.filter((v) => !actual.includes(v)) }).toEqual({ notListed: [], gone: [] });
  });

  it('has no feature importing another feature but the listed ones, and every listed one still exists', () => {
    const across: string[] = [];
    for (const [from, targets] of graph) {
      const own = featureOf(from);
      if (own === null) continue;
      for (const to of targets) {
        const other = featureOf(to);
        if (other !== null && other !== own) across.push(`${from} -> ${to}`);
      }
    }
    const actual = [...new Set(across)].sort();
    expect({ notListed: actual.filter((v) => !SPEC.remaining.features.includes(v)), gone: SPEC.remaining.features.filter((v) => !actual.includes(v)) }).toEqual({ notListed: [], gone: [] });
  });

  it('names as features only folders of the features layer', () => {
    const layer = SPEC.layers.find((l) => l.name === 'features')!;
    for (const f of SPEC.features) expect(layer.paths).toContain(f);
  });

  it('keeps every source file of src/ within 400 lines (one concern per file)', () => {
    const long = all.filter((f) => f.startsWith('src/')).map((f) => ({ f, lines: readFileSync(join(ROOT, f), 'utf8').split('\n').length })).filter((x) => x.lines > 400);
    expect(long).toEqual([]);
  });

  it('has no import cycle but the listed ones, and every listed one still exists', () => {
    const actual = cycles().map((c) => c.join(' ')).sort();
    expect({ notListed: actual.filter((c) => !SPEC.remaining.cycles.includes(c)), gone: SPEC.remaining.cycles.filter((c) => !actual.includes(c)) }).toEqual({ notListed: [], gone: [] });
  });
});
