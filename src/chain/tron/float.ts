// The payout float of a watch-only TRON network: the one hot key left (src/chain/payout-float.ts).
// Its key file holds a hex private key or a BIP-39 mnemonic; from a mnemonic the float is the
// standard first account m/44'/195'/0'/0/0, the one TRON wallets (TronLink, tronweb's
// fromMnemonic) restore first from the phrase. It is never the gateway's seed.
import { secp256k1FloatKey, type PayoutFloatForm } from '../payout-float.ts';
import { keySigner, type TronSigner } from './keys.ts';

export const TRON_FLOAT_PATH = "m/44'/195'/0'/0/0";

/** The float's signer from its key file's text; throws saying what is wrong, without the text. */
export function tronFloatSigner(secret: string): TronSigner {
  return keySigner(secp256k1FloatKey(secret, TRON_FLOAT_PATH));
}

export const tronPayoutFloat: PayoutFloatForm = {
  accepts: `a hex private key (0x optional) or a BIP-39 mnemonic (account ${TRON_FLOAT_PATH})`,
  address: (_network, secret) => tronFloatSigner(secret).address,
};
