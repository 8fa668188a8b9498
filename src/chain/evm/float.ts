// The payout float of a watch-only EVM network: the one hot key left (src/chain/payout-float.ts).
// Its key file holds a hex private key or a BIP-39 mnemonic; from a mnemonic the float is the
// standard first account m/44'/60'/0'/0/0, the one any EVM wallet restored from the phrase shows
// first, so the operator can fund and watch it there. It is never the gateway's seed.
import { bytesToHex } from '@noble/hashes/utils.js';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { secp256k1FloatKey, type PayoutFloatForm } from '../payout-float.ts';

export const EVM_FLOAT_PATH = "m/44'/60'/0'/0/0";

/** The float's account from its key file's text; throws saying what is wrong, without the text. */
export function evmFloatAccount(secret: string): PrivateKeyAccount {
  return privateKeyToAccount(`0x${bytesToHex(secp256k1FloatKey(secret, EVM_FLOAT_PATH))}`);
}

export const evmPayoutFloat: PayoutFloatForm = {
  accepts: `a hex private key (0x optional) or a BIP-39 mnemonic (account ${EVM_FLOAT_PATH})`,
  address: (_network, secret) => evmFloatAccount(secret).address,
};
