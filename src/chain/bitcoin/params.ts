// Chain parameters of the Bitcoin family (BTC, LTC, DOGE on main, test and regtest): address
// prefixes, BIP-44 coin type and derivation purpose. Data only; the values are the ones in
// each project's chainparams.cpp.

export type BitcoinChain = 'main' | 'test' | 'regtest';
export type BitcoinCoin = 'bitcoin' | 'litecoin' | 'dogecoin';

export const BITCOIN_CHAINS: readonly BitcoinChain[] = ['main', 'test', 'regtest'];

/** What @scure/btc-signer needs to encode and decode addresses and keys. */
export interface BtcNetwork {
  bech32: string;
  pubKeyHash: number;
  scriptHash: number;
  wif: number;
}

export interface ChainParams {
  coin: BitcoinCoin;
  chain: BitcoinChain;
  /** btc-signer's network; Dogecoin has no SegWit, its bech32 prefix is never accepted. */
  net: BtcNetwork;
  /** Older P2SH version bytes a chain still accepts (Litecoin's legacy 3... and 2... addresses). */
  legacyScriptHash: number[];
  segwit: boolean;
  taproot: boolean;
  /** BIP-84 (P2WPKH) where the chain has SegWit, BIP-44 (P2PKH) otherwise. */
  purpose: 84 | 44;
}

const TABLE: Record<BitcoinCoin, Record<BitcoinChain, Omit<ChainParams, 'coin' | 'chain' | 'purpose'>>> = {
  bitcoin: {
    main: { net: { bech32: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, wif: 0x80 }, legacyScriptHash: [], segwit: true, taproot: true },
    test: { net: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }, legacyScriptHash: [], segwit: true, taproot: true },
    regtest: { net: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }, legacyScriptHash: [], segwit: true, taproot: true },
  },
  litecoin: {
    main: { net: { bech32: 'ltc', pubKeyHash: 0x30, scriptHash: 0x32, wif: 0xb0 }, legacyScriptHash: [0x05], segwit: true, taproot: true },
    test: { net: { bech32: 'tltc', pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef }, legacyScriptHash: [0xc4], segwit: true, taproot: true },
    regtest: { net: { bech32: 'rltc', pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef }, legacyScriptHash: [0xc4], segwit: true, taproot: true },
  },
  dogecoin: {
    main: { net: { bech32: '', pubKeyHash: 0x1e, scriptHash: 0x16, wif: 0x9e }, legacyScriptHash: [], segwit: false, taproot: false },
    test: { net: { bech32: '', pubKeyHash: 0x71, scriptHash: 0xc4, wif: 0xf1 }, legacyScriptHash: [], segwit: false, taproot: false },
    regtest: { net: { bech32: '', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }, legacyScriptHash: [], segwit: false, taproot: false },
  },
};

export function chainParams(coin: BitcoinCoin, chain: BitcoinChain = 'main'): ChainParams {
  const p = TABLE[coin][chain];
  return { coin, chain, ...p, purpose: p.segwit ? 84 : 44 };
}

/** BIP-44 coin type: the registry's on the main chain, 1 (every testnet) otherwise. */
export function coinTypeFor(registryCoinType: number, chain: BitcoinChain): number {
  return chain === 'main' ? registryCoinType : 1;
}

export function parseChain(v: unknown, where: string): BitcoinChain {
  if (v === undefined || v === null) return 'main';
  if (typeof v === 'string' && (BITCOIN_CHAINS as readonly string[]).includes(v)) return v as BitcoinChain;
  throw new Error(`${where}: one of main, test, regtest is required`);
}
