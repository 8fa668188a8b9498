// JSON exactly as PHP's json_encode($v, JSON_UNESCAPED_UNICODE) writes it. Merchants verify a
// webhook by re-encoding it with PHP, so every byte of the signed text must match PHP's output.

const NEEDS_ESCAPE = /["\\/\u0000-\u001f\u2028\u2029\ud800-\udfff]/;

const SHORT: Record<number, string> = {
  0x22: '\\"',
  0x5c: '\\\\',
  0x2f: '\\/',
  0x08: '\\b',
  0x0c: '\\f',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x2028: '\\u2028',
  0x2029: '\\u2029',
};

/**
 * Compact JSON with PHP's escaping: `/` as `\/`, control characters as `\u00xx` (lowercase hex),
 * U+2028/U+2029 escaped, every other non-ASCII character raw. Objects keep insertion order;
 * properties whose value is `undefined` are left out (PHP has no such value).
 *
 * Numbers must be safe integers: a float would need PHP's own float formatting, and amounts are
 * strings anyway. A lone UTF-16 surrogate (which PHP would reject as invalid UTF-8) becomes U+FFFD,
 * as with JSON_INVALID_UTF8_SUBSTITUTE, so the text always has one UTF-8 form to sign.
 */
export function phpJsonEncode(value: unknown): string {
  return encode(value, 0);
}

function encode(v: unknown, depth: number): string {
  // PHP's default depth limit is 512.
  if (depth > 512) throw new RangeError('phpJsonEncode: maximum depth exceeded');
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return encodeString(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      if (!Number.isSafeInteger(v)) throw new TypeError(`phpJsonEncode: only integers are supported, got ${v}`);
      return String(v);
    case 'bigint':
      return v.toString();
    case 'object': {
      if (Array.isArray(v)) return '[' + v.map((x) => encode(x, depth + 1)).join(',') + ']';
      const parts: string[] = [];
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (x === undefined) continue;
        parts.push(encodeString(k) + ':' + encode(x, depth + 1));
      }
      return '{' + parts.join(',') + '}';
    }
    default:
      throw new TypeError(`phpJsonEncode: cannot encode a ${typeof v}`);
  }
}

function encodeString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return '"' + s + '"';
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short = SHORT[c];
    if (short !== undefined) {
      out += short;
    } else if (c < 0x20) {
      out += '\\u00' + c.toString(16).padStart(2, '0');
    } else if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
      } else {
        out += '\ufffd';
      }
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      out += '\ufffd';
    } else {
      out += s[i]!;
    }
  }
  return out + '"';
}
