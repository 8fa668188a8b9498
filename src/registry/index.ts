// The registry of networks and currencies is data (networks.json); this module only reads it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** How a network writes its addresses (the chain's address module derives and checks each). */
export type AddressFormat = 'bitcoin' | 'litecoin' | 'dogecoin' | 'evm' | 'tron' | 'ton' | 'solana' | 'monero' | 'monero-stagenet' | 'monero-testnet';

export type Priority = 'economy' | 'recommended' | 'high' | 'highest';

export interface CurrencyDef {
  code: string;
  name: string;
  decimals: number;
  /** Places payer amounts are rounded (up) to; default min(decimals, 8). */
  amount_decimals?: number;
  native?: boolean;
  contract?: string;
  min: string;
  max: string;
  payout_min: string;
  payout_max: string;
  commission_percent: string;
  /** Currency the network fee of a payout is charged in (defaults to the currency itself). */
  fee_currency?: string;
  fees?: Partial<Record<Priority, string>>;
}

export interface NetworkDef {
  code: string;
  /** The chain's own name ("Ethereum"), without a token standard. */
  name: string;
  /** The standard its tokens follow ("ERC-20"), named only beside a token: see currencyNetworkLabel. */
  token_standard?: string;
  family: string;
  address_format: AddressFormat;
  coin_type: number;
  /** Bitcoin family: the chain its driver is configured for (main unless test or regtest). */
  chain?: 'main' | 'test' | 'regtest';
  chain_id?: number;
  /** EVM: public JSON-RPC endpoints a payer's wallet may add the chain with (never the gateway's own node). */
  public_rpc?: string[];
  confirmations: number;
  uri_scheme: string;
  explorer_tx: string;
  memo?: boolean;
  fees: Partial<Record<Priority, string>>;
  currencies: CurrencyDef[];
}

export interface FiatDef {
  code: string;
  name: string;
  decimals: number;
}

interface RegistryFile {
  fiat: FiatDef[];
  networks: NetworkDef[];
}

export const DEFAULT_REGISTRY_FILE = fileURLToPath(new URL('./networks.json', import.meta.url));

export class Registry {
  readonly networks: NetworkDef[];
  readonly fiat: FiatDef[];
  private readonly byNetwork = new Map<string, NetworkDef>();
  private readonly fiatByCode = new Map<string, FiatDef>();
  private readonly cryptoCodes = new Set<string>();

  constructor(data: RegistryFile) {
    this.networks = data.networks;
    this.fiat = data.fiat;
    for (const n of data.networks) {
      this.byNetwork.set(n.code.toUpperCase(), n);
      for (const c of n.currencies) this.cryptoCodes.add(c.code.toUpperCase());
    }
    for (const f of data.fiat) this.fiatByCode.set(f.code.toUpperCase(), f);
  }

  static load(file = DEFAULT_REGISTRY_FILE): Registry {
    return new Registry(JSON.parse(readFileSync(file, 'utf8')) as RegistryFile);
  }

  /** The same registry with some networks adjusted (a configured chain, say). */
  withNetworks(adjust: (n: NetworkDef) => NetworkDef): Registry {
    return new Registry({ fiat: this.fiat, networks: this.networks.map(adjust) });
  }

  network(code: string | null | undefined): NetworkDef | undefined {
    return code ? this.byNetwork.get(code.toUpperCase()) : undefined;
  }

  isCrypto(code: string): boolean {
    return this.cryptoCodes.has(code.toUpperCase());
  }

  fiatCurrency(code: string): FiatDef | undefined {
    return this.fiatByCode.get(code.toUpperCase());
  }

  /** Known as fiat or as a cryptocurrency on some network. */
  isKnownCurrency(code: string): boolean {
    return this.isCrypto(code) || this.fiatByCode.has(code.toUpperCase());
  }

  /** Networks that carry a cryptocurrency. */
  networksOf(currency: string): NetworkDef[] {
    const c = currency.toUpperCase();
    return this.networks.filter((n) => n.currencies.some((x) => x.code.toUpperCase() === c));
  }

  currencyOn(network: string, currency: string): CurrencyDef | undefined {
    const n = this.network(network);
    const c = currency.toUpperCase();
    return n?.currencies.find((x) => x.code.toUpperCase() === c);
  }

  /** Every (currency, network) pair, in registry order. */
  pairs(): Array<{ network: NetworkDef; currency: CurrencyDef }> {
    return this.networks.flatMap((network) => network.currencies.map((currency) => ({ network, currency })));
  }

  /** Decimal places to show or round an amount of `currency` to (fiat 2; crypto: the fewest among its networks' decimals is not right for payment, so callers with a network use currencyOn). */
  decimalsOf(currency: string): number {
    const f = this.fiatCurrency(currency);
    if (f) return f.decimals;
    const nets = this.networksOf(currency);
    return Math.min(...nets.map((n) => this.currencyOn(n.code, currency)!.decimals));
  }
}

/** How a payer sees the network of a currency: "Ethereum" for ETH itself, "Ethereum (ERC-20)" for
 * a token on it. A native coin follows no token standard, and labelling it with one makes a payer
 * look for a token that does not exist. */
export function currencyNetworkLabel(network: NetworkDef, currency: CurrencyDef): string {
  return network.token_standard && currency.native !== true ? `${network.name} (${network.token_standard})` : network.name;
}
