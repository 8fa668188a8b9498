// The dashboard speaks the user's language everywhere: no view renders English that is not in the
// language tables, and every language has every sentence. The first part reads the views' source
// (src/dashboard-ui/*.tsx) with the TypeScript parser and fails on text a person would see that is
// written in the code instead of asked of t(): JSX text with letters, a string given to a
// label-like attribute (aria-label, title, placeholder, alt, label, hint, caption, ...), and a
// string literal that reads as English words (a flash message, a confirmation, a table heading
// passed in an array). The allow-list below is short on purpose: names that are the same in every
// language. The second part checks every language against English: the same keys, none empty, and
// each sentence with exactly the {placeholders} of the English one.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { PAGE_LANGUAGES } from '../../src/contracts/payer.ts';
import { en, type Messages } from '../../src/dashboard-ui/i18n/en.ts';
import { LOCALES } from '../../src/dashboard-ui/i18n/index.ts';
import { formatMessage } from '../../src/ui-kit/locale.ts';
import { TIMELINE_EVENTS } from '../../src/contracts/dashboard/invoices.ts';
import { DASHBOARD_ERROR_CODES } from '../../src/contracts/dashboard/codes.ts';

const dir = new URL('../../src/dashboard-ui/', import.meta.url).pathname;

/** Text that is the same in every language: the product's name, codes, formats, symbols. */
const ALLOWED = new Set([
  'Satchel', // the product
  '· Satchel', // after the view's (translated) name in the window title
  'Aa', // a sample of letters on the accent colour
  'https://', // a URL field's placeholder
  'blocked: private address', // what the webhook sender records; compared, never shown
  // settings, commands and paths, written as the operator types them
  'allow_private_callbacks',
  'SATCHEL_ALLOW_PRIVATE_CALLBACKS=1',
  'satchel doctor',
  '/v1/payment/refund',
]);

/** Attributes whose value a person reads or hears. */
const READ_ATTRIBUTES = new Set(['aria-label', 'title', 'placeholder', 'alt', 'label', 'hint', 'caption', 'empty', 'aria-description', 'aria-roledescription', 'aria-valuetext']);

/** Attributes whose value is code (a class, an id, a type), never read. */
const CODE_ATTRIBUTES = new Set(['class', 'className', 'id', 'idPrefix', 'type', 'name', 'for', 'htmlFor', 'key', 'autoComplete', 'inputMode', 'accept', 'rel', 'target', 'href', 'src', 'style', 'role', 'lang', 'kind', 'family', 'value', 'to', 'method', 'download']);

/** Calls whose string arguments are keys or codes, not text. */
const KEY_CALLS = new Set(['t', 'tr', 'tAudit', 'tLabel', 'labelText', 'labelHint', 'import', 'require', 'getPropertyValue', 'css', 'get', 'getAll', 'has', 'set', 'querySelector', 'setAttribute', 'getAttribute', 'includes', 'startsWith', 'endsWith', 'test', 'split', 'replace', 'padStart', 'addEventListener', 'removeEventListener', 'closest', 'matchMedia']);

/** Letters of a word read as English: a capitalised word ("Remove"), or two lowercase words ("no cap"). */
const WORDS = /\b[A-Z][a-z]{1,}\b|\b[a-z]{2,}[ ,;:]+[a-z]{2,}\b/;

function isProse(text: string): boolean {
  const trimmed = text.trim();
  return /\p{L}/u.test(trimmed) && !ALLOWED.has(trimmed) && WORDS.test(trimmed);
}

/** The JSX attribute a node is the value of (or part of), if any. */
function attributeOf(node: ts.Node): ts.JsxAttribute | null {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isJsxAttribute(n)) return n;
    if (ts.isJsxElement(n) || ts.isJsxSelfClosingElement(n) || ts.isJsxFragment(n) || ts.isBlock(n)) return null;
  }
  return null;
}

function calleeName(node: ts.CallExpression): string {
  const e = node.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (e.kind === ts.SyntaxKind.ImportKeyword) return 'import';
  return '';
}

/** Whether a string literal is used as a key or code where it stands, not shown. */
function usedAsCode(node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent) || ts.isExternalModuleReference(parent)) return true;
  if (ts.isLiteralTypeNode(parent)) return true;
  if (ts.isPropertyAssignment(parent) && parent.name === node) return true;
  if (ts.isElementAccessExpression(parent)) return true;
  if (ts.isCaseClause(parent)) return true;
  if (ts.isBinaryExpression(parent) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.InKeyword].includes(parent.operatorToken.kind)) return true;
  if (ts.isCallExpression(parent) && KEY_CALLS.has(calleeName(parent))) return true;
  const attribute = attributeOf(node)?.name.getText();
  // class names, ids, input types, data-*: code, whatever words they hold
  return attribute !== undefined && !READ_ATTRIBUTES.has(attribute) && (CODE_ATTRIBUTES.has(attribute) || /^(data|aria)-/.test(attribute));
}

/** The visible text of a literal or a template (its `${...}` parts left out). */
function literalText(node: ts.Node): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' ');
  return null;
}

export interface Finding {
  file: string;
  line: number;
  text: string;
}

/** Every English text a .tsx source renders without the language tables. */
export function hardCodedText(file: string, source: string): Finding[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const out: Finding[] = [];
  const report = (node: ts.Node, text: string) => out.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, text: text.trim().replace(/\s+/g, ' ') });
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node)) {
      const text = node.text.trim();
      if (/\p{L}/u.test(text) && !ALLOWED.has(text)) report(node, text);
    } else if (ts.isJsxAttribute(node) && READ_ATTRIBUTES.has(node.name.getText()) && node.initializer && ts.isStringLiteral(node.initializer)) {
      const text = node.initializer.text;
      if (/\p{L}/u.test(text) && !ALLOWED.has(text.trim())) report(node, text);
    } else {
      const text = literalText(node);
      if (text !== null && !usedAsCode(node) && !(ts.isJsxAttribute(node.parent) && ts.isStringLiteral(node)) && isProse(text)) report(node, text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

describe('the dashboard renders no hard-coded English', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.tsx'));

  test('the scan sees what it must refuse (and lets through what it must allow)', () => {
    const found = hardCodedText(
      'probe.tsx',
      [
        `import { t } from './i18n/index.ts';`,
        `export function P({ n }: { n: number }) {`,
        `  notify('ok', 'The logo was saved.');`,
        `  if (!confirm(\`Remove \${n}?\`)) return null;`,
        `  const cols = ['Network', ['Sent today', 'num']];`,
        `  return (<div class="notice tone-ok" data-x={n === 1 ? 'one' : 'other'}>`,
        `    <button aria-label="Close">×</button> Hello`,
        `    <input placeholder="https://" type="email" autoComplete="current-password" />`,
        `    <Field label="Email" id="e-mail" />`,
        `    <p title={t('skip')}>{t('loading')} Satchel</p>`,
        `    <span>{n > 1 ? 'no cap' : '—'}</span>`,
        `  </div>);`,
        `}`,
      ].join('\n'),
    );
    expect(found.map((f) => f.text)).toEqual(['The logo was saved.', 'Remove ?', 'Network', 'Sent today', 'Close', 'Hello', 'Email', 'no cap']);
  });

  test.each(files)('%s', (file) => {
    const found = hardCodedText(file, readFileSync(join(dir, file), 'utf8'));
    expect(found.map((f) => `${f.file}:${f.line} ${f.text}`)).toEqual([]);
  });
});

type Flat = Record<string, string>;

/** Every sentence of a language under a dotted key (labels as `.label` and `.meaning`). */
function flatten(m: Messages): Flat {
  const out: Flat = {};
  for (const [k, v] of Object.entries(m)) {
    if (typeof v === 'string') out[k] = v;
  }
  for (const [k, v] of Object.entries(m.audit)) out[`audit.${k}`] = v;
  for (const [family, codes] of Object.entries(m.labels)) {
    for (const [code, pair] of Object.entries(codes as Record<string, readonly [string, string]>)) {
      out[`labels.${family}.${code}.label`] = pair[0];
      out[`labels.${family}.${code}.meaning`] = pair[1];
    }
  }
  return out;
}

/** The {names} a sentence fills in, plural forms' inner words left out ("{count, plural, one {x}}" -> count). */
function placeholders(text: string): string[] {
  const names = new Set<string>();
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '{') {
      if (depth === 0) {
        const m = /^\{\s*([A-Za-z_]\w*)\s*[,}]/.exec(text.slice(i));
        if (m) names.add(m[1]!);
      }
      depth++;
    } else if (c === '}') depth--;
    i++;
  }
  return [...names].sort();
}

describe('every language has every sentence', () => {
  const english = flatten(en as unknown as Messages);

  test('the new invite keys are in English as worded', () => {
    expect(english.invite_by_email).toBe('Invite by email');
    expect(english.invite_email_sent).toBe('Invitation sent to {email}.');
    expect(english.invite_email_failed).toBe('The email could not be sent ({reason}). Share the invite link below instead.');
    expect(english.invite_email_off).toBe('Email is not set up on this server, so invitations are links you share yourself.');
  });

  test('every code the API sends for the browser to word has its sentence (so every language must have it too)', () => {
    // An invoice's timeline events (src/dashboard-ui/timeline.tsx) and the API's refusal codes (src/dashboard-ui/error-text.ts).
    for (const code of TIMELINE_EVENTS) expect(english[`tl_${code}`], `tl_${code}`).toBeTruthy();
    for (const code of DASHBOARD_ERROR_CODES) expect(english[`err_${code}`], `err_${code}`).toBeTruthy();
    expect(english.inv_unavailable).toContain('{reason}');
  });

  test.each(PAGE_LANGUAGES.filter((c) => c !== 'en'))('%s', async (code) => {
    const m = ((await import(`../../src/dashboard-ui/i18n/${code}.ts`)) as { default: Messages }).default;
    const own = flatten(m);
    expect(Object.keys(own).sort()).toEqual(Object.keys(english).sort());
    const problems: string[] = [];
    for (const [key, text] of Object.entries(english)) {
      const theirs = own[key] ?? '';
      if (theirs.trim() === '') problems.push(`${key}: empty`);
      else if (placeholders(theirs).join() !== placeholders(text).join()) problems.push(`${key}: {${placeholders(theirs).join(', ')}} instead of {${placeholders(text).join(', ')}}`);
      else {
        // Filled in as the dashboard fills it (plural forms chosen for several counts), nothing of the syntax is left.
        for (const n of [0, 1, 2, 3, 5, 11, 22]) {
          const shown = formatMessage(theirs, Object.fromEntries(placeholders(theirs).map((p) => [p, p === 'count' ? n : 'x'])), LOCALES[code]!);
          if (/[{}]/.test(shown)) problems.push(`${key}: "${shown}" for ${n}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
