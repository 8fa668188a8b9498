// TRON watch-only custody: a merchant's cold address, checked as the merchant typed it, and the
// deposit addresses derived from it: CREATE2 forwarders under the TVM's rule (prefix 0x41),
// compared with vectors made by an independent implementation (fixtures/make-forwarder-vectors.ts,
// tronweb only).
import { describe, expect, it } from 'vitest';
import { TronWeb } from 'tronweb';
import { concat, getContractAddress, keccak256 } from 'viem';
import { Registry } from '../../../src/registry/index.ts';
import { CustodyInputError } from '../../../src/chain/errors.ts';
import { tronFamily } from '../../../src/chain/tron/index.ts';
import { configuredTronNetwork, TRON_ZERO_ADDRESS } from '../../../src/chain/tron/custody.ts';
import { parseForwarderPath } from '../../../src/chain/watch-paths.ts';
import { depositSalt as evmDepositSalt, proxyInitCode as evmProxyInitCode } from '../../../src/chain/evm/forwarder/create2.ts';
import { flushCall } from '../../../src/chain/evm/forwarder/index.ts';
import { depositSalt, flushCallData, proxyInitCode } from '../../../src/chain/tron/forwarder.ts';
import fixture from './fixtures/forwarder-vectors.json' with { type: 'json' };

const TRON = Registry.load().network('TRON')!;
const custody = tronFamily.watchOnly!;
const settings = { driver: 'tron', factory_address: fixture.factory, implementation_address: fixture.implementation };
const network = configuredTronNetwork(TRON, settings);
const COLD = fixture.vectors[0]!.cold;

function refusal(address: string): { problem: string; message: string } {
  try {
    custody.parse(TRON, { address });
  } catch (err) {
    expect(err).toBeInstanceOf(CustodyInputError);
    return { problem: (err as CustodyInputError).problem, message: (err as Error).message };
  }
  throw new Error(`accepted: ${address}`);
}

describe('TRON watch-only custody', () => {
  it('is the TRON family\'s watch-only form, taking a cold address', () => {
    expect(tronFamily.custody).toEqual(['seed', 'watch-only']);
    expect(custody.inputs).toEqual(['address']);
  });

  it('derives every vector of the independent implementation, with a forwarder path naming the cold address', () => {
    expect(fixture.vectors.length).toBeGreaterThanOrEqual(18);
    for (const v of fixture.vectors) {
      const d = custody.deposit(network, v.cold, v.custodyId, v.index);
      expect(d.address, `${v.cold} ${v.custodyId}/${v.index}`).toBe(v.address);
      expect(parseForwarderPath(d.path)).toEqual({ cold: v.cold, salt: v.salt });
    }
    // Distinct cold addresses, custody rows and indexes never share a deposit address.
    expect(new Set(fixture.vectors.map((v) => v.address)).size).toBe(fixture.vectors.length);
  });

  it('uses the TVM\'s CREATE2 prefix 0x41, not the EVM\'s 0xff', () => {
    const v = fixture.vectors[0]!;
    const id = (a: string) => `0x${(TronWeb.address.toHex(a) as string).slice(2)}` as const;
    const evm = getContractAddress({ opcode: 'CREATE2', from: id(fixture.factory), salt: v.salt as `0x${string}`, bytecode: proxyInitCode(id(v.cold), id(fixture.implementation)) });
    expect(custody.deposit(network, v.cold, v.custodyId, v.index).address).not.toBe(TronWeb.address.fromHex(`41${evm.slice(2)}`));
    const tvm = keccak256(concat(['0x41', id(fixture.factory), v.salt as `0x${string}`, keccak256(proxyInitCode(id(v.cold), id(fixture.implementation)))]));
    expect(TronWeb.address.fromHex(`41${tvm.slice(-40)}`)).toBe(v.address);
  });

  it('computes the salt, the proxy init code and the flush call data exactly as the EVM family does for the same contracts', () => {
    const cold = '0x00000000000000000000000000000000000000c0' as const;
    const impl = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01' as const;
    const token = '0x00000000000000000000000000000000000000aa' as const;
    for (const id of ['a/0', '6a0c3f7e-1111-4c55-9a57-3b8e2f6d1a00/42', 'ünïcode/1']) expect(depositSalt(id)).toBe(evmDepositSalt(id));
    expect(proxyInitCode(cold, impl)).toBe(evmProxyInitCode(cold, impl).toLowerCase());
    expect((proxyInitCode(cold, impl).length - 2) / 2).toBe(10 + 71);
    const salt = depositSalt('x/1');
    for (const native of [true, false]) {
      expect(flushCallData(cold, salt, [token], native)).toBe(flushCall(cold, salt, [token], { native, factory: impl }).data);
    }
    expect(flushCallData(cold, salt, [], true)).toBe(flushCall(cold, salt, [], { factory: impl }).data);
  });

  it('depends on the factory and the implementation of the network\'s settings', () => {
    const v = fixture.vectors[0]!;
    const other = configuredTronNetwork(TRON, { ...settings, implementation_address: fixture.vectors[1]!.address });
    expect(custody.deposit(other, v.cold, v.custodyId, v.index).address).not.toBe(v.address);
    expect(() => custody.deposit(TRON, v.cold, v.custodyId, v.index)).toThrow(/networks\.TRON\.factory_address and implementation_address are required/);
  });

  it('refuses forwarder settings that are incomplete or not TRON addresses', () => {
    expect(() => configuredTronNetwork(TRON, { factory_address: fixture.factory })).toThrow('networks.TRON.implementation_address: required with factory_address');
    expect(() => configuredTronNetwork(TRON, { ...settings, factory_address: '0x' + '1'.repeat(40) })).toThrow('networks.TRON.factory_address: a TRON contract address (T..., base58check) is required');
    expect(() => configuredTronNetwork(TRON, { ...settings, implementation_address: fixture.factory })).toThrow(/must differ from factory_address/);
    expect(configuredTronNetwork(TRON, { driver: 'tron' })).toBe(TRON);
  });

  it('accepts a base58 cold address and its 41-hex form, stored as base58', () => {
    expect(custody.parse(TRON, { address: `  ${COLD} ` })).toEqual({ kind: 'address', material: COLD, summary: COLD });
    const hex = (TronWeb.address.toHex(COLD) as string).toUpperCase();
    expect(custody.parse(TRON, { address: hex }).material).toBe(COLD);
  });

  it('refuses a bad checksum, the zero address, a private key (never echoed), an Ethereum address, anything else', () => {
    const typo = COLD.slice(0, 10) + (COLD[10] === 'a' ? 'b' : 'a') + COLD.slice(11);
    expect(refusal(typo)).toEqual({ problem: 'bad_checksum', message: 'The cold address has a bad checksum: a character was mistyped' });
    expect(refusal(TRON_ZERO_ADDRESS).problem).toBe('zero_address');
    expect(refusal(`41${'0'.repeat(40)}`).problem).toBe('zero_address');
    const key = 'ab'.repeat(32);
    for (const k of [key, `0x${key}`]) {
      const r = refusal(k);
      expect(r.problem).toBe('private_key');
      expect(r.message).not.toContain(key);
    }
    const phrase = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
    expect(refusal(phrase)).toMatchObject({ problem: 'private_key' });
    expect(refusal(phrase).message).not.toContain('abandon');
    expect(refusal(`0x${'12'.repeat(20)}`).message).toMatch(/Ethereum address/);
    for (const bad of ['hello', 'T123', `${COLD}1`, 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq']) expect(refusal(bad).problem).toBe('not_address');
    expect(() => custody.parse(TRON, {})).toThrow(CustodyInputError);
    expect(() => custody.parse(TRON, { xpub: 'xpub6...' })).toThrow(/not an extended key/);
  });
});
