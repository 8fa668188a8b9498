// The JSON Schema (draft 2020-12, as OpenAPI 3.1 uses) of an operation's parameters, derived from
// the same rule strings that validate them, so the description cannot drift from the checks.
import { COURSE_SOURCES, MAX_AMOUNT_LENGTH, type RuleSet } from '../rules.ts';

export type JsonSchema = { [key: string]: unknown };

const TRUE_FALSE = [true, false, 1, 0, '1', '0', 'true', 'false'];
const INTEGER_TEXT = '^\\s*[+-]?\\d+\\s*$';
const NUMERIC_TEXT = '^\\s*[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?\\s*$';
const DECIMAL_TEXT = '^\\s*[+-]?(\\d+(\\.\\d*)?|\\.\\d+)\\s*$';
const UUID_TEXT = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const ALPHA_DASH_TEXT = '^[\\p{L}\\p{M}\\p{N}_-]+$';

/** A pattern matching any of `names` in any letter case (JSON Schema patterns have no flags). */
function anyCase(names: readonly string[]): string {
  const one = (n: string) => [...n].map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c)).join('');
  return `^(${names.map(one).join('|')})$`;
}

function arg(rules: string[], name: string): string | undefined {
  const r = rules.find((x) => x.startsWith(`${name}:`));
  return r === undefined ? undefined : r.slice(name.length + 1);
}

/** The schema of one parameter's rule string (without its required-ness). */
export function ruleSchema(ruleText: string): JsonSchema {
  const rules = ruleText.split('|');
  const has = (n: string) => rules.includes(n);
  const min = arg(rules, 'min');
  const max = arg(rules, 'max');
  const allOf: JsonSchema[] = [];
  let schema: JsonSchema;
  if (has('array')) {
    schema = { type: 'array', ...(min !== undefined ? { minItems: Number(min) } : {}), ...(max !== undefined ? { maxItems: Number(max) } : {}) };
  } else if (has('boolean')) {
    schema = { enum: TRUE_FALSE };
  } else if (has('integer') || has('numeric')) {
    const integer = has('integer');
    const bounds = { ...(min !== undefined ? { minimum: Number(min) } : {}), ...(max !== undefined ? { maximum: Number(max) } : {}) };
    schema = { anyOf: [{ type: integer ? 'integer' : 'number', ...bounds }, { type: 'string', pattern: has('plain_decimal') ? DECIMAL_TEXT : integer ? INTEGER_TEXT : NUMERIC_TEXT }] };
    if (has('string')) schema = { type: 'string', pattern: has('plain_decimal') ? DECIMAL_TEXT : integer ? INTEGER_TEXT : NUMERIC_TEXT };
  } else if (has('string') || has('amount') || has('uuid') || has('url') || has('alpha_dash')) {
    schema = { type: 'string', ...(min !== undefined ? { minLength: Number(min) } : {}), ...(max !== undefined ? { maxLength: Number(max) } : {}) };
  } else {
    schema = {};
  }
  if (has('amount')) {
    Object.assign(schema, { type: 'string', maxLength: MAX_AMOUNT_LENGTH });
    allOf.push({ pattern: DECIMAL_TEXT });
  }
  if (has('positive')) schema.description = 'greater than zero';
  if (has('uuid')) allOf.push({ format: 'uuid', pattern: UUID_TEXT });
  if (has('url')) allOf.push({ format: 'uri', pattern: '^https?://\\S+$' });
  if (has('alpha_dash')) allOf.push({ pattern: ALPHA_DASH_TEXT });
  if (has('course_source')) allOf.push({ pattern: anyCase(Object.values(COURSE_SOURCES)) });
  const regex = arg(rules, 'regex');
  if (regex !== undefined) allOf.push({ pattern: regex.slice(1, regex.lastIndexOf('/')) });
  const inList = arg(rules, 'in');
  if (inList !== undefined) schema.enum = inList.split(',');
  if (allOf.length === 1) Object.assign(schema, allOf[0]);
  else if (allOf.length > 1) schema.allOf = allOf;
  return schema;
}

/**
 * The object schema of a rule set: its properties, the required ones, `required_without` pairs as
 * "one of them", and `list.*.field` rules as the items of `list`. Parameters that are not required
 * may also be null (the API reads null as "not given").
 */
export function paramsSchema(rules: RuleSet): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const oneOfThem: string[][] = [];
  const items = new Map<string, RuleSet>();
  for (const [field, ruleText] of Object.entries(rules)) {
    const star = field.indexOf('.*.');
    if (star >= 0) {
      const list = field.slice(0, star);
      items.set(list, { ...(items.get(list) ?? {}), [field.slice(star + 3)]: ruleText });
      continue;
    }
    const parts = ruleText.split('|');
    const schema = ruleSchema(ruleText);
    if (parts.includes('required')) {
      required.push(field);
      properties[field] = schema;
    } else {
      properties[field] = { anyOf: [schema, { type: 'null' }] };
    }
    const without = arg(parts, 'required_without');
    if (without !== undefined) {
      const pair = [field, ...without.split(',')].sort();
      if (!oneOfThem.some((p) => p.join() === pair.join())) oneOfThem.push(pair);
    }
  }
  for (const [list, itemRules] of items) {
    const target = properties[list];
    const arraySchema = target && Array.isArray(target.anyOf) ? (target.anyOf[0] as JsonSchema) : target;
    if (arraySchema) arraySchema.items = paramsSchema(itemRules);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(oneOfThem.length > 0 ? { allOf: oneOfThem.map((pair) => ({ anyOf: pair.map((f) => ({ required: [f] })) })) } : {}),
  };
}
