// A chain family is one folder plus one line: its name appears in src/ only in its own folder
// (src/chain/<family>/), in the registry's data (src/registry/) and in the composition root's
// import of its index.ts (src/compose.ts). Everything else asks the network's family
// (`ctx.chains.family`, `ctx.chains.families`) and never names one.
//
// The rule, read from TypeScript's syntax tree of every file of src/ (comments and JSX text are
// prose and not read):
// - a string literal or template text (import paths included) that holds a family's name as a
//   whole word in lower case: `'evm'`, `'bitcoin-core'`, `'./chain/tron/index.ts'`, `'../page/evm-pay.tsx'`;
// - an identifier that is exactly a family's name: `invoice.evm`, `{ evm: ... }`.
// Lower case only: family names are lower-case keys (the registry's `family` and `address_format`,
// folder names, driver names); upper-case `TRON`, `TON` or `BTC` are network and currency codes
// (data the merchant sends), and `EVM` in a message is prose.
//
// What still breaks the rule is listed in test/architecture.families.json as "file: name", exactly:
// the test fails on an occurrence not listed and on a listed one that is gone, so the list only shrinks.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './helpers/source-files.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SPEC = JSON.parse(readFileSync(join(ROOT, 'test/architecture.families.json'), 'utf8')) as { owners: Record<string, string>; remaining: string[] };

const files = sourceFiles;

/** The family names each string or identifier of the file holds (see the rule above), with their text. */
function mentions(file: string): Array<{ name: string; text: string }> {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: Array<{ name: string; text: string }> = [];
  const words = Object.keys(SPEC.owners);
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      if (words.includes(node.text)) out.push({ name: node.text, text: node.text });
    } else if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      for (const name of words) if (new RegExp(`(?<![A-Za-z0-9])${name}(?![A-Za-z0-9])`).test(node.text)) out.push({ name, text: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Where a family's name may appear: its own folder, the registry, and compose.ts's import of its index.ts. */
function allowed(file: string, name: string, text: string): boolean {
  const owner = SPEC.owners[name]!;
  if (file.startsWith(`src/chain/${owner}/`)) return true;
  if (file.startsWith('src/registry/')) return true;
  return file === 'src/compose.ts' && text === `./chain/${owner}/index.ts`;
}

describe('chain families', () => {
  it('are named only in their own folder, the registry and compose.ts, but for the listed exceptions, each of which still exists', () => {
    const found = new Set<string>();
    for (const file of files('src')) {
      for (const { name, text } of mentions(file)) if (!allowed(file, name, text)) found.add(`${file}: ${name}`);
    }
    const actual = [...found].sort();
    expect({ notListed: actual.filter((v) => !SPEC.remaining.includes(v)), gone: SPEC.remaining.filter((v) => !actual.includes(v)) }).toEqual({ notListed: [], gone: [] });
  });
});
