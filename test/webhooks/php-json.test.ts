import { describe, expect, it } from 'vitest';
import { phpJsonEncode } from '../../src/webhooks/php-json.ts';

// Expected texts are what PHP 8 prints for json_encode($value, JSON_UNESCAPED_UNICODE).
describe('phpJsonEncode', () => {
  it('writes compact JSON with scalars as PHP does', () => {
    expect(phpJsonEncode({ a: 1, b: -5, c: 0, d: true, e: false, f: null, g: 'x' })).toBe('{"a":1,"b":-5,"c":0,"d":true,"e":false,"f":null,"g":"x"}');
    expect(phpJsonEncode(9007199254740991)).toBe('9007199254740991');
    expect(phpJsonEncode(10n ** 18n)).toBe('1000000000000000000');
    expect(phpJsonEncode('')).toBe('""');
  });

  it('keeps insertion order, nests, and writes empty arrays and objects', () => {
    expect(phpJsonEncode({ z: 1, a: [1, 'two', [], {}], m: { y: null, b: [true] } })).toBe('{"z":1,"a":[1,"two",[],{}],"m":{"y":null,"b":[true]}}');
    expect(phpJsonEncode([])).toBe('[]');
    expect(phpJsonEncode({})).toBe('{}');
  });

  it('leaves out undefined properties and writes undefined array items as null', () => {
    expect(phpJsonEncode({ a: 1, convert: undefined, b: 2 })).toBe('{"a":1,"b":2}');
    expect(phpJsonEncode([undefined, 1])).toBe('[null,1]');
  });

  it('escapes slashes, quotes and backslashes', () => {
    expect(phpJsonEncode('https://shop.example/cb?a=1')).toBe('"https:\\/\\/shop.example\\/cb?a=1"');
    expect(phpJsonEncode('say "hi" \\ bye')).toBe('"say \\"hi\\" \\\\ bye"');
    expect(phpJsonEncode({ 'a/b': '"' })).toBe('{"a\\/b":"\\""}');
  });

  it('uses the short escapes, and \\u00xx in lowercase hex for other control characters', () => {
    expect(phpJsonEncode('\b\f\n\r\t')).toBe('"\\b\\f\\n\\r\\t"');
    expect(phpJsonEncode('\u0000\u0001\u000b\u001b\u001f')).toBe('"\\u0000\\u0001\\u000b\\u001b\\u001f"');
    // DEL is not a JSON control character: PHP leaves it raw.
    expect(phpJsonEncode('\u007f')).toBe('"\u007f"');
  });

  it('writes non-ASCII raw, except U+2028 and U+2029', () => {
    expect(phpJsonEncode('café — “quoted” ₿ 日本 😀')).toBe('"café — “quoted” ₿ 日本 😀"');
    expect(phpJsonEncode('a\u2028b\u2029c')).toBe('"a\\u2028b\\u2029c"');
    expect(phpJsonEncode('\u00a0\u200b\ufeff')).toBe('"\u00a0\u200b\ufeff"');
  });

  it('substitutes U+FFFD for a lone surrogate so the text has one UTF-8 form', () => {
    expect(phpJsonEncode('a\ud800b')).toBe('"a\ufffdb"');
    expect(phpJsonEncode('a\udc00')).toBe('"a\ufffd"');
    expect(phpJsonEncode('\ud83d\ude00')).toBe('"😀"');
  });

  it('refuses floats and values JSON cannot hold', () => {
    expect(() => phpJsonEncode(1.5)).toThrow(TypeError);
    expect(() => phpJsonEncode(Number.NaN)).toThrow(TypeError);
    expect(() => phpJsonEncode(() => 1)).toThrow(TypeError);
  });

  it('agrees with JSON.parse on what it wrote', () => {
    const v = { s: 'x/y\n"\\\u0001\u2028é', n: [1, -2, null, false], o: { k: 'v' } };
    expect(JSON.parse(phpJsonEncode(v))).toEqual(v);
  });
});
