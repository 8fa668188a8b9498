// The payout float of a watch-only Solana network: the one Solana key the gateway holds
// (src/chain/payout-float.ts). Its key file holds what Solana tools write (./keyfile.ts: a CLI
// keypair JSON array, a base58 secret key, or a base58 seed); the float is the system account of
// that key: it pays the fees, the SOL it sends, the rent of the token accounts its payouts create,
// and owns the associated token accounts its USDC/USDT leave from. The operator funds the address
// `satchel payout-float address --network SOL` prints (SOL, and the tokens to that address's
// associated token accounts, which any wallet sending to the address creates).
import type { NetworkDef } from '../../registry/index.ts';
import type { PayoutFloatForm } from '../payout-float.ts';
import { solanaKeyText } from './address.ts';
import { SOLANA_KEY_FORMS, solanaKeyFromFile } from './keyfile.ts';

export interface SolanaFloat {
  /** The 32-byte ed25519 seed: what signs. */
  seed: Uint8Array;
  publicKey: Uint8Array;
  /** Base58: where the operator sends funds. */
  address: string;
}

export function solanaFloat(secret: string): SolanaFloat {
  const key = solanaKeyFromFile(secret);
  return { seed: key.seed, publicKey: key.publicKey, address: solanaKeyText(key.publicKey) };
}

export const solanaPayoutFloat: PayoutFloatForm = {
  accepts: SOLANA_KEY_FORMS,
  address: (_network: NetworkDef, secret: string) => solanaFloat(secret).address,
};
