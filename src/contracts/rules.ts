// The one set of input rules of the merchant API, Laravel-style: the rule names and error codes a
// Cryptomus client already parses. Every operation's parameters are checked here, nowhere else.
import { ValidationError } from '../errors.ts';
import { compareNumeric, scanNumeric } from '../money/numeric.ts';
import { Decimal } from '../money/decimal.ts';

/** Longest amount text any operation takes. */
export const MAX_AMOUNT_LENGTH = 40;

export type Input = Record<string, unknown>;
/** Parameter -> rule string. A key `list.*.field` checks `field` of every item of the array `list`
 * (once `list` itself passed), item by item. */
export type RuleSet = Record<string, string>;

/** A history date, `YYYY-MM-DD H:mm:ss`. */
export const HISTORY_DATE_RULE = 'string|regex:/^\\d{4}-\\d{2}-\\d{2} \\d{1,2}:\\d{2}:\\d{2}$/';

const HISTORY_DATE_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{1,2}):(\d{2}):(\d{2})$/;

/** 'YYYY-MM-DD H:mm:ss' read at UTC+3 (the API's timezone), to epoch milliseconds; null if not a real time. */
export function parseListDate(s: string): number | null {
  const m = HISTORY_DATE_RE.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59) return null;
  const ms = Date.UTC(y, mo - 1, d, h, mi, se);
  if (new Date(ms).getUTCDate() !== d) return null;
  return ms - 3 * 3600_000;
}

/** `course_source` values the API accepts (any case) -> the rate source's name. */
export const COURSE_SOURCES: Readonly<Record<string, string>> = {
  binance: 'Binance',
  binancep2p: 'BinanceP2P',
  exmo: 'Exmo',
  kucoin: 'Kucoin',
};

/** The rate source a `course_source` value names (case-insensitive), or null when none. */
export function courseSourceName(s: string): string | null {
  const key = s.toLowerCase();
  return Object.hasOwn(COURSE_SOURCES, key) ? COURSE_SOURCES[key]! : null;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ALPHA_DASH_RE = /^[\p{L}\p{M}\p{N}_-]+$/u;
const INTEGER_RE = /^[+-]?\d+$/;

export function isUuid(v: unknown): v is string {
  return typeof v === 'string' && UUID_RE.test(v);
}

/** The first top-level parameter holding a NUL character anywhere inside it (no database stores
 * one in text, and no legitimate client sends one), or null. */
export function parameterWithNul(input: Input): string | null {
  const has = (v: unknown): boolean =>
    typeof v === 'string' ? v.includes('\u0000') : Array.isArray(v) ? v.some(has) : v !== null && typeof v === 'object' ? Object.values(v).some(has) : false;
  for (const [k, v] of Object.entries(input)) if (has(v) || k.includes('\u0000')) return k;
  return null;
}

/** Absent, null and "" all mean "not given" (Laravel converts empty strings to null). */
export function isMissing(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

const TRUE = new Set<unknown>([true, 1, '1', 'true']);
const FALSE = new Set<unknown>([false, 0, '0', 'false']);

export function isBoolean(v: unknown): boolean {
  return TRUE.has(v) || FALSE.has(v);
}

export function toBoolean(v: unknown, fallback: boolean): boolean {
  if (isMissing(v)) return fallback;
  return TRUE.has(v);
}

function isInteger(v: unknown): boolean {
  return (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && INTEGER_RE.test(v.trim()));
}

function isNumeric(v: unknown): boolean {
  return scanNumeric(v) !== null;
}

function isUrl(v: unknown): boolean {
  if (typeof v !== 'string' || /\s/.test(v)) return false;
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

/** Compares a validated numeric value with a rule's bound exactly, without expanding either. */
function compareWithBound(value: unknown, bound: string): number {
  const a = scanNumeric(value);
  const b = scanNumeric(bound);
  return a && b ? compareNumeric(a, b) : 0;
}

/**
 * Validates `input` against Laravel-like rule strings ("required|string|min:1|max:128|alpha_dash").
 * Stops at the first failing rule of each parameter (Laravel's `bail`), and reports every failing
 * parameter at once. Throws ValidationError; returns nothing.
 */
export function validate(input: Input, rules: RuleSet): void {
  const errors = validationErrors(input, rules);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

interface Plan {
  fields: Array<[field: string, rules: string[]]>;
  items: Map<string, Array<[field: string, rules: string[]]>>;
}
/** Each rule set is taken apart once (operations' rule sets are constants). */
const plans = new WeakMap<RuleSet, Plan>();

function planOf(rules: RuleSet): Plan {
  let plan = plans.get(rules);
  if (plan) return plan;
  plan = { fields: [], items: new Map() };
  for (const [field, ruleText] of Object.entries(rules)) {
    const star = field.indexOf('.*.');
    if (star < 0) {
      plan.fields.push([field, ruleText.split('|')]);
      continue;
    }
    const list = field.slice(0, star);
    plan.items.set(list, [...(plan.items.get(list) ?? []), [field.slice(star + 3), ruleText.split('|')]]);
  }
  plans.set(rules, plan);
  return plan;
}

/** Every failing parameter of `input` with its first failing code (see `validate`). */
export function validationErrors(input: Input, rules: RuleSet): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const plan = planOf(rules);
  for (const [field, fieldRules] of plan.fields) {
    const code = check(input, field, fieldRules);
    if (code) errors[field] = [code];
  }
  for (const [list, fields] of plan.items) {
    const values = input[list];
    if (!Array.isArray(values) || errors[list]) continue;
    values.forEach((item, i) => {
      const obj = item !== null && typeof item === 'object' && !Array.isArray(item) ? (item as Input) : {};
      for (const [field, fieldRules] of fields) {
        const code = check(obj, field, fieldRules);
        if (code) errors[`${list}.${i}.${field}`] = [code];
      }
    });
  }
  return errors;
}

/** Returns the first failing validation code, or null. */
export function check(input: Input, field: string, rules: string[]): string | null {
  const value = input[field];
  const kind = rules.includes('array')
    ? 'array'
    : rules.includes('integer') || rules.includes('numeric')
      ? 'numeric'
      : 'string';
  let required = rules.includes('required');
  for (const r of rules) {
    if (r.startsWith('required_without:')) {
      const others = r.slice('required_without:'.length).split(',');
      if (others.some((o) => isMissing(input[o]))) required = true;
    }
  }
  if (isMissing(value) || (Array.isArray(value) && value.length === 0 && required)) {
    if (!required) return null;
    const rw = rules.find((r) => r.startsWith('required_without:'));
    return rules.includes('required') || !rw ? 'validation.required' : 'validation.required_without';
  }
  for (const r of rules) {
    const [name, arg = ''] = splitRule(r);
    switch (name) {
      case 'string':
        if (typeof value !== 'string') return 'validation.string';
        break;
      case 'integer':
        if (!isInteger(value)) return 'validation.integer';
        break;
      case 'numeric':
        if (!isNumeric(value)) return 'validation.numeric';
        break;
      case 'amount': {
        // The one amount rule: a string of at most 40 characters (the spec's refund limit, which
        // Laravel would read as a value next to `numeric`) holding a plain decimal. Exponent
        // notation is refused rather than expanded.
        const text = String(value);
        if ([...text].length > MAX_AMOUNT_LENGTH) return 'validation.max.string';
        if (!Decimal.tryParse(text.trim())) return 'validation.numeric';
        break;
      }
      case 'positive': {
        // An amount above zero (after `amount`): zero and below read as Laravel's `min` on a number.
        const d = Decimal.tryParse(String(value).trim());
        if (!d || !d.gt('0')) return 'validation.min.numeric';
        break;
      }
      case 'plain_decimal':
        // A number written as a plain decimal: exponent notation ("1e-3") is refused, not expanded.
        if (!Decimal.tryParse(String(value).trim())) return 'validation.numeric';
        break;
      case 'course_source':
        if (!courseSourceName(String(value))) return 'validation.in';
        break;
      case 'boolean':
        if (!isBoolean(value)) return 'validation.boolean';
        break;
      case 'array':
        if (!Array.isArray(value)) return 'validation.array';
        break;
      case 'url':
        if (!isUrl(value)) return 'validation.url';
        break;
      case 'uuid':
        if (!isUuid(value)) return 'validation.uuid';
        break;
      case 'alpha_dash':
        if (typeof value !== 'string' && typeof value !== 'number') return 'validation.alpha_dash';
        if (!ALPHA_DASH_RE.test(String(value))) return 'validation.alpha_dash';
        break;
      case 'in':
        if (!arg.split(',').includes(String(value))) return 'validation.in';
        break;
      case 'regex':
        if (typeof value !== 'string' || !new RegExp(arg.slice(1, arg.lastIndexOf('/'))).test(value)) {
          return 'validation.regex';
        }
        break;
      case 'min':
      case 'max': {
        const size = sizeOf(value, kind);
        if (size === null) break;
        const cmp = kind === 'numeric' ? compareWithBound(value, arg) : Math.sign(size - Number(arg));
        if (name === 'min' ? cmp < 0 : cmp > 0) return `validation.${name}.${kind}`;
        break;
      }
      default:
        break;
    }
  }
  return null;
}

function splitRule(r: string): [string, string?] {
  const i = r.indexOf(':');
  return i < 0 ? [r] : [r.slice(0, i), r.slice(i + 1)];
}

function sizeOf(value: unknown, kind: 'array' | 'numeric' | 'string'): number | null {
  if (kind === 'array') return Array.isArray(value) ? value.length : null;
  if (kind === 'numeric') return 0; // compared exactly by compareNumeric
  if (typeof value === 'string') return [...value].length;
  if (typeof value === 'number') return String(value).length;
  return null;
}
