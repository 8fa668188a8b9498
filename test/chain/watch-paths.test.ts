// The paths and deposit keys of watch-only deposits: what a driver is told about an address it
// watches, and how a deposit paid with a comment keeps its own row in `addresses`.
import { describe, expect, it } from 'vitest';
import {
  depositKey,
  forwarderPath,
  isWatchOnlyPath,
  parseDepositKey,
  parseReferencePath,
  parseWatchPath,
  referencePath,
  watchPath,
} from '../../src/chain/watch-paths.ts';

const CUSTODY = '0b6f3c1e-7f7a-4a53-9a43-2f4d3b1c9e10';

describe('reference paths', () => {
  it('round-trips the custody row and index', () => {
    const path = referencePath(CUSTODY, 42);
    expect(path).toBe(`reference:${CUSTODY}/42`);
    expect(parseReferencePath(path)).toEqual({ custodyId: CUSTODY, index: 42 });
  });

  it('is a watch-only path, like the other watch-only forms', () => {
    expect(isWatchOnlyPath(referencePath(CUSTODY, 0))).toBe(true);
    expect(isWatchOnlyPath(watchPath(CUSTODY, 0))).toBe(true);
    expect(isWatchOnlyPath(forwarderPath('0x' + '1'.repeat(40), '0x' + '2'.repeat(64)))).toBe(true);
    expect(isWatchOnlyPath("m/44'/0'/0'/0/1")).toBe(false);
  });

  it('is not mistaken for another kind of path', () => {
    expect(parseReferencePath(watchPath(CUSTODY, 3))).toBeNull();
    expect(parseWatchPath(referencePath(CUSTODY, 3))).toBeNull();
    expect(parseReferencePath('reference:../x/1')).toBeNull();
    expect(parseReferencePath(`reference:${CUSTODY}/-1`)).toBeNull();
  });

  it('refuses a bad custody id or index', () => {
    expect(() => referencePath('has space', 1)).toThrow(/custody id/);
    expect(() => referencePath(CUSTODY, -1)).toThrow(/index/);
    expect(() => referencePath(CUSTODY, 1.5)).toThrow(/index/);
  });
});

describe('deposit keys', () => {
  const account = 'UQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG';

  it('joins the account and the reference, and splits them back', () => {
    const key = depositKey(account, 'a1B2c3D4e5');
    expect(key).toBe(`${account}#a1B2c3D4e5`);
    expect(parseDepositKey(key)).toEqual({ account, reference: 'a1B2c3D4e5' });
  });

  it('says a plain address is not a deposit key', () => {
    expect(parseDepositKey(account)).toBeNull();
    expect(parseDepositKey('0x' + 'ab'.repeat(20))).toBeNull();
    expect(parseDepositKey('#abc')).toBeNull();
    expect(parseDepositKey(`${account}#`)).toBeNull();
    expect(parseDepositKey(`${account}#has space`)).toBeNull();
  });

  it('refuses a reference that is not letters and digits, or an account with the separator', () => {
    expect(() => depositKey(account, '')).toThrow(/payment reference/);
    expect(() => depositKey(account, 'a b')).toThrow(/payment reference/);
    expect(() => depositKey(account, 'x'.repeat(65))).toThrow(/payment reference/);
    expect(() => depositKey(`${account}#x`, 'abc')).toThrow(/account/);
    expect(() => depositKey('', 'abc')).toThrow(/account/);
  });
});
