// A chain family as one object: everything the gateway asks of a family besides its driver's
// contract (./contract.ts). Each family's folder exports one `ChainFamily` from its index.ts and
// the composition root lists them, one line each; the shared code (allocation, the payer's view,
// /readyz, the doctor, the explorer links) asks the network's family through `Families` and never
// names one. A family leaves out what does not apply to it.
import type { Kysely } from 'kysely';
import type { NetworkConfig } from '../config.ts';
import type { PayerEvm } from '../contracts/payer.ts';
import type { DB } from '../db/schema.ts';
import type { CurrencyDef, NetworkDef } from '../registry/index.ts';
import type { DriverFactories, DriverFactory } from './contract.ts';
import { AddressFormats, type AddressFormatRules } from './address/index.ts';

/** How a family's deposit keys are held. `seed`: derived from the gateway's BIP-39 seed;
 * `watch-only`: from what each merchant supplies, with no spending key on the gateway. */
export type CustodyForm = 'seed' | 'watch-only';

/** What a merchant may supply for a watch-only network (one of them; the family says which). */
export interface CustodyInput {
  /** An account-level extended public key (xpub, zpub, Ltub, ...). */
  xpub?: string;
  /** An output descriptor. */
  descriptor?: string;
  /** A cold address the funds must end up at; or, with `viewKey`, a wallet's primary address. */
  address?: string;
  /** A wallet's private view key, beside its primary address `address` (a chain whose wallets
   * have one: it sees payments and cannot spend). Refused and never echoed when it is a spending key. */
  viewKey?: string;
}

/** A merchant's receiving material as stored: public, and enough to derive every deposit address. */
export interface ParsedCustody {
  /** `extended-key`, `descriptor` or `address`. */
  kind: 'extended-key' | 'descriptor' | 'address';
  /** The canonical form deposit addresses are derived from (a descriptor with its checksum, a
   * checksummed address). */
  material: string;
  /** What the merchant and the dashboard are shown (the key, the descriptor or the address). */
  summary: string;
}

/** A family's watch-only receiving: checking what a merchant supplies and deriving from it. */
export interface WatchOnlyCustody {
  /** Where this object is exported (its module's `import.meta.url` and the export's name), so the
   * address-pool thread can load it and derive there. */
  readonly module: { readonly url: string; readonly name: string };
  /** What the merchant gives, in words for the CLI's and dashboard's help. */
  readonly accepts: string;
  /** Which CustodyInput fields the family takes. */
  readonly inputs: readonly (keyof CustodyInput)[];
  /**
   * Checks the input for the network (its chain, its prefixes). Throws CustodyInputError (../chain/errors.ts)
   * naming the problem; a private key in the input is refused and never echoed.
   */
  parse(network: NetworkDef, input: CustodyInput): ParsedCustody;
  /**
   * Deposit address number `index` of stored material `material` (custody row `custodyId`), and
   * the path recorded with it (./watch-paths.ts). Pure and cheap: no node is asked.
   */
  deposit(network: NetworkDef, material: string, custodyId: string, index: number): { address: string; path: string };
  /**
   * The parsed material as it is stored, completed with what only the network's node knows (the
   * height a scan of it starts at, say); `current` is the merchant's current material of the
   * network, so that the same key set again can keep it as it is. Must not fail for an unreachable
   * node: it stores what it can and says in the material what is still to be learnt.
   */
  settle?(network: NetworkDef, settings: NetworkConfig | undefined, parsed: ParsedCustody, current: string | null): Promise<ParsedCustody>;
  /** A warning about valid input the merchant should look at again (a cold address that is a
   * contract, say), when the family can tell; asks the network's node, so it may fail: callers ignore failures. */
  warn?(network: NetworkDef, settings: NetworkConfig | undefined, parsed: ParsedCustody): Promise<WatchOnlyWarning | null>;
}

/** A warning about custody input: its code and values (src/contracts/dashboard/custody.ts
 * CUSTODY_WARNINGS, which the dashboard words), and its English. */
export interface WatchOnlyWarning {
  code: 'contract_address' | 'hot_custody';
  params: Record<string, string>;
  message: string;
}

/** What a family's payout float key is (./payout-float.ts): how it is read from key_file's text, and whose account it is. */
export interface PayoutFloatForm {
  /** What key_file may hold, in words for messages (never the secret itself). */
  readonly accepts: string;
  /**
   * Settings of `payout_float` the family reads beside the shared ones, each with its check
   * (throws an Error naming `where` when the value cannot work).
   */
  readonly settings?: Readonly<Record<string, (value: unknown, where: string) => void>>;
  /**
   * The float's address on `network` from the key file's text (and the family's own settings,
   * when it has some). Throws an Error saying what is wrong with the text, without repeating it.
   */
  address(network: NetworkDef, secret: string, settings?: Readonly<Record<string, unknown>>): string;
  /**
   * A float that is a wallet the operator runs and funds (Monero's full `monero-wallet-rpc`), not a
   * key the gateway reads: `setting` is the network setting that names it (its URL), the float
   * exists when it is set, key_file is not used, and the float's account is what the wallet
   * answers (the driver's payoutWallet), so `address` is never asked.
   */
  readonly wallet?: {
    readonly setting: string;
    /** The float's primary address, asked of the wallet itself (`satchel payout-float address`); throws saying why it cannot. */
    readonly address?: (network: NetworkDef, settings: NetworkConfig | undefined) => Promise<string>;
  };
}

/** How far a network's scan has come, from its stored cursor (for /readyz and /metrics). */
export interface ScanStatus {
  network: string;
  /** Last block scanned. */
  height: number;
  /** The node's height when the scan last succeeded. */
  nodeHeight: number | null;
  /** Blocks the scan is behind the node (null until the node answered once). */
  lag: number | null;
  /** When the scan last succeeded (ms since the epoch). */
  updatedAt: number;
}

/** Default bounds of what a node may answer (`max_head_jump`, `max_response_bytes`). */
export interface NodeLimitDefaults {
  maxHeadJump: number;
  maxResponseBytes: number;
}

/** What a payment to a network is made to, with the operator's settings applied. */
export interface PaymentTarget {
  /** The chain id a wallet must be on, when the family has one. */
  chainId: number | undefined;
  /** The token's contract (the operator's override first); undefined for the native coin. */
  contract: string | undefined;
}

export interface ChainFamily {
  /** The registry's `family` of the networks it serves. */
  readonly name: string;
  /** Its drivers, by the name operators write in `networks.CODE.driver`. */
  readonly drivers: Readonly<Record<string, DriverFactory>>;
  /** The address formats it defines, by the registry's `address_format`. */
  readonly addressFormats?: Readonly<Record<string, AddressFormatRules>>;
  /** How its keys may be held. */
  readonly custody: readonly CustodyForm[];
  /** Its watch-only receiving, when `custody` includes `watch-only`. */
  readonly watchOnly?: WatchOnlyCustody;
  /**
   * Its payout float on watch-only networks: what the float's key file holds and whose account it
   * is (./payout-float.ts). A family without one refuses payouts and refunds on its watch-only
   * networks.
   */
  readonly payoutFloat?: PayoutFloatForm;
  /** A transaction id in the family's shape, from 32 bytes written as 64 hex digits. */
  readonly txid?: (hex: string) => string;
  /** The one written form of an address, where several mean the same account. */
  readonly canonicalAddress?: (address: string) => string;
  /** The network as its driver's settings make it (a test chain's prefixes, say). */
  readonly configuredNetwork?: (network: NetworkDef, settings: NetworkConfig | undefined) => NetworkDef;
  /**
   * The chain the operator configured the network for, in the terms of `NodeStatus.chain`, or null
   * when the family does not tell its chains apart.
   */
  readonly expectedChain?: (network: NetworkDef, settings: NetworkConfig | undefined) => string | null;
  /** A development chain that mines on demand: no public explorer knows it, its coins are worthless. */
  readonly isDevChain?: (chain: string) => boolean;
  /** The doctor's least limit on the age of a node's head (slow blocks), in minutes. */
  readonly minHeadAgeMinutes?: number;
  /** Default node limits of its drivers. */
  readonly nodeLimits?: NodeLimitDefaults;
  /** Its networks' scans, from the stored cursors: readable by a process that never scans. */
  readonly scanStatus?: (db: Kysely<DB>) => Promise<ScanStatus[]>;
  /** The chain and token a payment goes to, the operator's settings applied. */
  readonly paymentTarget?: (network: NetworkDef, settings: NetworkConfig | undefined, currency: CurrencyDef) => PaymentTarget;
  /**
   * What a browser wallet needs to pay on a real network of the family, or null when it cannot.
   * `explorerUrl`: the explorer's own address, when one shows the network's transactions.
   */
  readonly walletPay?: (network: NetworkDef, settings: NetworkConfig | undefined, currency: CurrencyDef, explorerUrl: string | null) => PayerEvm | null;
}

/** The families a gateway knows (the composition root's table), asked by network. */
export class Families {
  private readonly byName = new Map<string, ChainFamily>();
  /** Every family's address formats: deriving, checking, payment URIs. */
  readonly addresses: AddressFormats;

  constructor(readonly list: readonly ChainFamily[]) {
    const formats: Record<string, AddressFormatRules> = {};
    for (const f of list) {
      if (this.byName.has(f.name)) throw new Error(`chain family "${f.name}" is listed twice`);
      this.byName.set(f.name, f);
      for (const [name, rules] of Object.entries(f.addressFormats ?? {})) {
        if (formats[name]) throw new Error(`address format "${name}" is defined by two chain families`);
        formats[name] = rules;
      }
    }
    this.addresses = new AddressFormats(formats);
  }

  /** The family of a network of the registry; undefined when none is plugged in (simulated only). */
  of(network: NetworkDef): ChainFamily | undefined {
    return this.byName.get(network.family);
  }

  /** Every family's drivers, by the name a network's `driver` setting gives. */
  drivers(): DriverFactories {
    const table: Record<string, DriverFactory> = {};
    for (const f of this.list) {
      for (const [kind, factory] of Object.entries(f.drivers)) {
        if (table[kind]) throw new Error(`driver "${kind}" is given by two chain families`);
        table[kind] = factory;
      }
    }
    if (!table.simulated) throw new Error('the simulated driver is missing from the chain families');
    return table as DriverFactories;
  }

  /** A transaction id of the network's family's shape. */
  txid(network: NetworkDef, hex: string): string {
    return this.of(network)?.txid?.(hex) ?? hex;
  }

  /** The network as its driver's settings make it. */
  configuredNetwork(network: NetworkDef, settings: NetworkConfig | undefined): NetworkDef {
    return this.of(network)?.configuredNetwork?.(network, settings) ?? network;
  }

  /** Whether the network is configured for a development chain. */
  isLocalChain(network: NetworkDef, settings: NetworkConfig | undefined): boolean {
    const family = this.of(network);
    const chain = family?.expectedChain?.(network, settings) ?? null;
    return chain !== null && family?.isDevChain?.(chain) === true;
  }

  /** The scans of every family's networks. */
  async scanStatus(db: Kysely<DB>): Promise<ScanStatus[]> {
    const all = await Promise.all(this.list.map((f) => f.scanStatus?.(db) ?? []));
    return all.flat().sort((a, b) => (a.network < b.network ? -1 : a.network > b.network ? 1 : 0));
  }
}
