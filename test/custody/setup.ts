// A gateway whose real networks receive watch-only, for the tests of changing a merchant's
// receiving material: ETH on the `evm` driver pointed at anvil (deposit addresses are CREATE2
// forwarders computed offline; the node answers whether a cold address is a contract), LTC on
// `bitcoin-core` in regtest (an extended public key's network and depth are checked offline; no
// node is asked), and DOGE in hot custody (the settings page warns about it). Also the keys a
// merchant's own wallet would hold, made here.
import { HDKey } from '@scure/bip32';
import { getAddress } from 'viem';
import { CHAIN_ID, startAnvil, type Anvil } from '../chain/evm/anvil.ts';
import { STATIC_RATES, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import type { Backend } from '../helpers/backends.ts';
import { signedBody } from '../../src/webhooks/payload.ts';

/** Bitcoin's testnet version bytes (tprv/tpub), which Litecoin regtest wallets export too. */
const TESTNET = { private: 0x04358394, public: 0x043587cf };

const master = HDKey.fromMasterSeed(new Uint8Array(32).fill(7), TESTNET);
/** The merchant's account m/84'/1'/0' (depth 3), as a wallet exports it. */
export const ACCOUNT = master.derive("m/84'/1'/0'");
export const TPUB = ACCOUNT.publicExtendedKey;
/** The account's PRIVATE key: must never be stored, printed or logged. */
export const TPRV = ACCOUNT.privateExtendedKey;
/** The same account serialised for Bitcoin mainnet (xpub): the wrong network for LTC regtest. */
export const MAINNET_XPUB = HDKey.fromMasterSeed(new Uint8Array(32).fill(7)).derive("m/84'/1'/0'").publicExtendedKey;
/** A depth-2 key (m/84'/1'): not an account. */
export const DEPTH2_TPUB = master.derive("m/84'/1'").publicExtendedKey;

/** Cold addresses of the merchant's wallets (EIP-55 written). */
export const COLD_A = '0x52908400098527886E0F7030069857D2E4169EE7';
export const COLD_B = '0xde709f2102306220921060314715629080e2fb77';
export const COLD_B_CHECKSUMMED = getAddress(COLD_B);
/** COLD_A with one letter's case flipped: a bad EIP-55 checksum. */
export const COLD_A_BAD_CHECKSUM = '0x52908400098527886E0F7030069857D2E4169Ee7';
export const ZERO = '0x0000000000000000000000000000000000000000';

export interface CustodyGateway extends TestGateway {
  anvil: Anvil;
  /** The gateway's network settings, for a CLI started beside it (SATCHEL_NETWORKS). */
  networksEnv: string;
}

export async function startCustodyGateway(backend: Backend): Promise<CustodyGateway> {
  const anvil = await startAnvil({ automine: true });
  const networks = JSON.stringify({
    ETH: { driver: 'evm', rpc_url: anvil.url, chain_id: CHAIN_ID, confirmations: 1, start_block: 1 },
    LTC: { driver: 'bitcoin-core', rpc_url: 'http://127.0.0.1:9/', chain: 'regtest', confirmations: 1 },
    DOGE: { driver: 'bitcoin-core', rpc_url: 'http://127.0.0.1:9/', chain: 'regtest', confirmations: 1, custody: 'hot' },
  });
  let gw: TestGateway;
  try {
    gw = await startTestGateway(backend, { env: { SATCHEL_NETWORKS: networks, SATCHEL_RATES: STATIC_RATES } });
  } catch (err) {
    await anvil.stop();
    throw err;
  }
  return {
    ...gw,
    anvil,
    networksEnv: networks,
    async close() {
      await gw.close();
      await anvil.stop();
    },
  };
}

/** Every row of every table the change could write to, as text: where a secret must not be. */
export async function everythingStored(gw: TestGateway): Promise<string> {
  const tables = ['merchant_custody', 'dashboard_audit', 'webhooks', 'addresses', 'hd_counters', 'merchants'] as const;
  const out: unknown[] = [];
  for (const t of tables) out.push(await gw.ctx.storage.db.selectFrom(t).selectAll().execute());
  return JSON.stringify(out);
}

/** Whether a delivered body carries a valid `sign` of the payment key (docs/webhooks.md). */
export function signedWith(body: string, key: string): boolean {
  const fields = JSON.parse(body) as Record<string, unknown>;
  const { sign, ...rest } = fields;
  return typeof sign === 'string' && signedBody(rest, key) === body;
}
