// Numeric parameters (Laravel `numeric` with min/max): every notation, compared exactly, in work
// bounded by the text's length.
import { describe, expect, it } from 'vitest';
import { compareNumeric, numericWork, scanNumeric } from '../../src/money/numeric.ts';
import { check } from '../../src/contracts/rules.ts';

const cmp = (a: unknown, b: unknown) => compareNumeric(scanNumeric(a)!, scanNumeric(b)!);

describe('scanNumeric', () => {
  it.each([
    ['5', false, '5', 1],
    ['-0.5', true, '5', 0],
    ['.5', false, '5', 0],
    ['5.', false, '5', 1],
    ['+12.500', false, '125', 2],
    ['0.00012', false, '12', -3],
    ['4e-3', false, '4', -2],
    ['4E+3', false, '4', 4],
    ['  7  ', false, '7', 1],
    ['0e999999999999', false, '', 0],
  ])('%j', (text, negative, digits, power) => {
    expect(scanNumeric(text)).toEqual({ negative: digits === '' ? false : negative, digits, power });
  });

  it.each(['', '.', 'e5', '1e', '1e+', '--1', '1.2.3', '0x1f', '1_0', 'NaN', 'Infinity', '١', '1\u00002', '1 2', {}, [], null, true, Infinity, NaN])(
    'refuses %j',
    (v) => {
      expect(scanNumeric(v)).toBeNull();
    },
  );

  it('reads finite JavaScript numbers', () => {
    expect(scanNumeric(2.5)).toEqual({ negative: false, digits: '25', power: 1 });
    expect(scanNumeric(1e-7)).toEqual({ negative: false, digits: '1', power: -6 });
  });
});

describe('compareNumeric', () => {
  it.each([
    ['1', '2', -1],
    ['2', '1', 1],
    ['1.50', '1.5', 0],
    ['-0', '0', 0],
    ['-1', '0', -1],
    ['-1', '-2', 1],
    ['0.45', '0.5', -1],
    ['5e0', '5', 0],
    ['50e-1', '5', 0],
    ['4e-400000000', '0', 1],
    ['4e-400000000', '5', -1],
    ['4e+400000000', '5', 1],
    ['-4e+400000000', '0', -1],
    ['1e999999999999999999999999', '1e400', 1],
    ['1e-999999999999999999999999', '1e-400', -1],
    ['5.000000000000000000000000000001', '5', 1],
  ])('%s vs %s', (a, b, want) => {
    expect(cmp(a, b)).toBe(want);
  });
});

describe('numeric min/max rules', () => {
  const rule = ['numeric', 'min:0', 'max:5'];
  it.each([
    ['0', null],
    ['5', null],
    ['4.999', null],
    ['5e0', null],
    ['4e-400000000', null],
    ['5.0000001', 'validation.max.numeric'],
    ['4e+400000000', 'validation.max.numeric'],
    ['-4e-400000000', 'validation.min.numeric'],
    ['-1', 'validation.min.numeric'],
    ['1e', 'validation.numeric'],
  ])('%s -> %s', (v, code) => {
    expect(check({ x: v }, 'x', rule)).toBe(code);
  });

  it('work is linear in the length of the text, whatever the exponent says', () => {
    for (const text of ['4e-400000000', '4e-9999999999999999999999', '9'.repeat(60000) + 'e-' + '9'.repeat(60000)]) {
      const before = numericWork.steps;
      check({ x: text }, 'x', rule);
      const steps = numericWork.steps - before;
      expect(steps).toBeLessThanOrEqual(4 * text.length);
    }
  });
});
