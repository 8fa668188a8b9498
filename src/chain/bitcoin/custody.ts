// Watch-only receiving for the Bitcoin family: a merchant's account-level extended public key or
// single-key descriptor (./watch-only.ts) is stored as its canonical descriptor, and deposit
// address i is its receiving chain's /0/i. Parsed descriptors are kept per material string, so an
// invoice derives one child key and no more.
import type { NetworkDef } from '../../registry/index.ts';
import { CustodyInputError } from '../errors.ts';
import type { CustodyInput, ParsedCustody, WatchOnlyCustody } from '../family.ts';
import { watchPath } from '../watch-paths.ts';
import { chainParams, type BitcoinChain, type BitcoinCoin, type ChainParams } from './params.ts';
import { deriveWatchAddress, parseWatchOnly, WatchOnlyError, type WatchOnlyMaterial } from './watch-only.ts';

function paramsOf(network: NetworkDef): ChainParams {
  return chainParams(network.address_format as BitcoinCoin, (network.chain ?? 'main') as BitcoinChain);
}

const parsedCache = new Map<string, WatchOnlyMaterial>();

function material(network: NetworkDef, descriptor: string): WatchOnlyMaterial {
  const key = `${network.code}|${network.chain ?? 'main'}|${descriptor}`;
  let m = parsedCache.get(key);
  if (!m) {
    m = parseWatchOnly(paramsOf(network), descriptor);
    // A bounded cache: merchants' materials are few; an old one is parsed again when needed.
    if (parsedCache.size >= 1000) parsedCache.delete(parsedCache.keys().next().value!);
    parsedCache.set(key, m);
  }
  return m;
}

export const bitcoinWatchOnly: WatchOnlyCustody = {
  module: { url: import.meta.url, name: 'bitcoinWatchOnly' },
  accepts: 'an account-level extended public key (xpub, ypub, zpub, Ltub, Mtub, dgub, or their test forms tpub, upub, vpub, ttub) or a wpkh(...), sh(wpkh(...)) or pkh(...) output descriptor',
  inputs: ['xpub', 'descriptor'],
  parse(network: NetworkDef, input: CustodyInput): ParsedCustody {
    const given = [input.xpub, input.descriptor].filter((x) => x !== undefined);
    if (input.address !== undefined) throw new CustodyInputError('wrong_form', `${network.code} takes an extended public key or a descriptor, not an address`);
    if (given.length !== 1) throw new CustodyInputError('missing', `${network.code} takes one extended public key or one descriptor`);
    try {
      const m = parseWatchOnly(paramsOf(network), given[0]!);
      return { kind: m.kind, material: m.descriptor, summary: m.kind === 'extended-key' ? given[0]!.trim() : m.descriptor };
    } catch (err) {
      if (err instanceof WatchOnlyError) throw new CustodyInputError(err.reason, err.message);
      throw err;
    }
  },
  deposit(network: NetworkDef, descriptor: string, custodyId: string, index: number) {
    return { address: deriveWatchAddress(material(network, descriptor), index).address, path: watchPath(custodyId, index) };
  },
};
