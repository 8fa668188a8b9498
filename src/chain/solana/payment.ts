// What a Solana payout is before it is signed: the request checked, its destination judged, and
// the instructions that pay it. What the float asks the node is the narrow SolanaPayoutNode below
// (the driver hands its JSON-RPC client in); amounts are bigint base units throughout.
//
// A destination must be a wallet: an account that does not exist yet, or one the System Program
// owns holding no data. The System Program's id, the token programs, a mint (USDC's own address),
// a token account, a program, or any other program's account are refused before anything is
// signed: lamports sent there are stuck or burnt, and tokens "to a mint" cannot be sent at all.
// A token payout goes to the recipient's associated token account for the registry's mint, created
// in the same transaction when missing (CreateIdempotent: a no-op when it exists); its rent is
// what the payout's quote adds to the commission.
import { ChainError, SendRejectedError } from '../errors.ts';
import { Decimal } from '../../money/decimal.ts';
import { ASSOCIATED_TOKEN_PROGRAM_ID, associatedTokenAddress, MEMO_PROGRAM_ID, parseSolanaKey, SolanaAddressError, solanaKeyText, SYSTEM_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from './address.ts';
import { createAssociatedTokenIdempotent, systemTransfer, transferChecked } from './instructions.ts';
import type { Instruction } from './tx.ts';
import type { SolanaFloat } from './float.ts';

/** An account as the node shows it (getAccountInfo, base64 data decoded). */
export interface SolanaAccount {
  lamports: bigint;
  owner: string;
  executable: boolean;
  data: Uint8Array;
}

/** A signature's status (getSignatureStatuses); null in a list: the node knows no such transaction. */
export interface SignatureStatus {
  slot: number;
  confirmations: number | null;
  /** The transaction's error (it landed and failed: only the fee was taken), or null. */
  err: unknown;
  confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
}

/** The JSON-RPC methods the float uses. */
export interface SolanaPayoutNode {
  latestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }>;
  blockHeight(): Promise<number>;
  /** getFeeForMessage: lamports, or null when the node no longer knows the message's blockhash. */
  feeForMessage(message: Uint8Array): Promise<bigint | null>;
  /** sendTransaction of the wire bytes; throws NodeError when the node refuses them. */
  sendTransaction(wire: Uint8Array): Promise<void>;
  /** getSignatureStatuses with searchTransactionHistory: true (at most 256 at once). */
  signatureStatuses(signatures: readonly string[]): Promise<(SignatureStatus | null)[]>;
  accountInfo(address: string): Promise<SolanaAccount | null>;
  rentExemption(size: number): Promise<bigint>;
}

/** A token of the network: its registry code, mint (registry or `tokens` override) and decimals. */
export interface SolanaToken {
  code: string;
  mint: string;
  decimals: number;
}

/** A payout that can never go out as asked; nothing was signed (the payout fails, funds return). */
export class SolanaSendError extends SendRejectedError {}

export interface Payment {
  currency: string;
  token: SolanaToken | null;
  to: Uint8Array;
  toText: string;
  units: bigint;
  amount: string;
}

/** The accounts of a token payout, and whether the recipient's token account must be created. */
export interface TokenRoute {
  program: string;
  source: string;
  destination: string;
  /** Rent the float pays to create `destination` (0 when it exists). */
  rent: bigint;
}

const U64_MAX = 0xffff_ffff_ffff_ffffn;
/** Bytes of an SPL token account; Token-2022's associated accounts carry the ImmutableOwner extension (5 more). */
const TOKEN_ACCOUNT_SIZE: Record<string, number> = { [TOKEN_PROGRAM_ID]: 165, [TOKEN_2022_PROGRAM_ID]: 170 };
const MINT_SIZE = 82;
const PROGRAMS: Record<string, string> = {
  [SYSTEM_PROGRAM_ID]: 'the System Program',
  [TOKEN_PROGRAM_ID]: 'the SPL Token program',
  [TOKEN_2022_PROGRAM_ID]: 'the Token-2022 program',
  [ASSOCIATED_TOKEN_PROGRAM_ID]: 'the Associated Token Account program',
  [MEMO_PROGRAM_ID]: 'the Memo program',
};

const key = (text: string): Uint8Array => parseSolanaKey(text);
const eqBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const u64At = (data: Uint8Array, at: number): bigint => new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(at, true);

export function parsePayment(o: { network: string; native: { code: string; decimals: number }; tokens: readonly SolanaToken[]; float: SolanaFloat }, req: { network: string; currency: string; to: string; amount: string }): Payment {
  if (req.network.toUpperCase() !== o.network.toUpperCase()) throw new SolanaSendError('invalid', `Network ${req.network} is not ${o.network}`);
  const code = req.currency.toUpperCase();
  const token = o.tokens.find((t) => t.code.toUpperCase() === code) ?? null;
  if (!token && code !== o.native.code.toUpperCase()) throw new SolanaSendError('invalid', `${req.currency} is not a currency of ${o.network}`);
  let to: Uint8Array;
  try {
    to = parseSolanaKey(req.to);
  } catch (e) {
    if (e instanceof SolanaAddressError) throw new SolanaSendError('invalid', `Not a Solana address: ${e.message}`);
    throw e;
  }
  const toText = solanaKeyText(to);
  const program = PROGRAMS[toText];
  if (program) throw new SolanaSendError('invalid', `${toText} is ${program}, not a wallet: nothing sent there could be spent again`);
  const mint = o.tokens.find((t) => t.mint === toText);
  if (mint) throw new SolanaSendError('invalid', `${toText} is the ${mint.code} mint, not a wallet: pay the wallet that should receive the ${mint.code}`);
  if (eqBytes(to, o.float.publicKey)) throw new SolanaSendError('invalid', `${toText} is the payout float itself`);
  const decimals = token ? token.decimals : o.native.decimals;
  const d = Decimal.tryParse(req.amount);
  let units = 0n;
  try {
    units = d ? d.toBaseUnits(decimals) : 0n;
  } catch {
    throw new SolanaSendError('invalid', `More than ${decimals} decimal places: ${req.amount}`);
  }
  if (units <= 0n) throw new SolanaSendError('invalid', `Not a positive amount: ${req.amount}`);
  if (units > U64_MAX) throw new SolanaSendError('invalid', `More than a Solana amount can hold: ${req.amount}`);
  return { currency: token ? token.code : o.native.code, token, to, toText, units, amount: Decimal.fromBaseUnits(units, decimals).toString() };
}

/** Refuses a destination that is not a wallet (what it is, in words), from the node's view of it. */
export async function checkDestination(node: SolanaPayoutNode, p: Payment): Promise<void> {
  const acc = await node.accountInfo(p.toText);
  if (!acc) return;
  const what = acc.executable
    ? 'a program'
    : acc.owner === TOKEN_PROGRAM_ID || acc.owner === TOKEN_2022_PROGRAM_ID
      ? acc.data.length === MINT_SIZE
        ? 'a token mint'
        : 'a token account (pay the wallet that owns it)'
      : acc.owner !== SYSTEM_PROGRAM_ID
        ? `an account of the program ${acc.owner}`
        : acc.data.length > 0
          ? 'a System Program account holding data (a nonce account)'
          : null;
  if (what) throw new SolanaSendError('invalid', `${p.toText} is ${what}, not a wallet: a ${p.currency} payout is not sent there`);
}

/** The token program of `t`'s mint, checked: the mint exists under SPL Token or Token-2022 and has the registry's decimals. */
export async function tokenProgramOf(node: SolanaPayoutNode, t: SolanaToken): Promise<string> {
  const acc = await node.accountInfo(t.mint);
  if (!acc || !TOKEN_ACCOUNT_SIZE[acc.owner] || acc.data.length < MINT_SIZE || acc.data[45] !== 1) {
    throw new SolanaSendError('invalid', `The ${t.code} mint ${t.mint} is not a token mint on this cluster (check the network's "tokens" setting)`);
  }
  if (acc.data[44] !== t.decimals) throw new SolanaSendError('invalid', `The ${t.code} mint ${t.mint} has ${acc.data[44]} decimals, the registry ${t.decimals}: nothing is sent until they agree`);
  return acc.owner;
}

/** The float's and the recipient's token accounts for `p` (a token payout) and the rent of creating the latter. */
export async function tokenRoute(node: SolanaPayoutNode, float: SolanaFloat, p: Payment & { token: SolanaToken }): Promise<TokenRoute> {
  const program = await tokenProgramOf(node, p.token);
  const destination = associatedTokenAddress(p.to, p.token.mint, program);
  const source = associatedTokenAddress(float.publicKey, p.token.mint, program);
  const acc = await node.accountInfo(destination);
  if (acc) {
    if (acc.owner !== program || acc.data.length < 72 || !eqBytes(acc.data.subarray(0, 32), key(p.token.mint)) || !eqBytes(acc.data.subarray(32, 64), p.to)) {
      throw new ChainError(`${destination}: the node shows an account that is not ${p.toText}'s ${p.token.code} token account at its associated address`);
    }
    return { program, source, destination, rent: 0n };
  }
  return { program, source, destination, rent: await node.rentExemption(TOKEN_ACCOUNT_SIZE[program]!) };
}

/** The float's balance of a token account (0 when it does not exist). */
export async function tokenBalance(node: SolanaPayoutNode, account: string): Promise<bigint> {
  const acc = await node.accountInfo(account);
  if (!acc) return 0n;
  if (!TOKEN_ACCOUNT_SIZE[acc.owner] || acc.data.length < 72) throw new ChainError(`${account}: the node shows no token account at the float's associated address`);
  return u64At(acc.data, 64);
}

/** The instructions that pay `p` from the float (a token payout always creates the destination idempotently). */
export function paymentInstructions(float: SolanaFloat, p: Payment, route: TokenRoute | null): Instruction[] {
  if (!p.token || !route) return [systemTransfer(key(SYSTEM_PROGRAM_ID), float.publicKey, p.to, p.units)];
  const program = key(route.program);
  const mint = key(p.token.mint);
  const destination = key(route.destination);
  return [
    createAssociatedTokenIdempotent(key(ASSOCIATED_TOKEN_PROGRAM_ID), { payer: float.publicKey, account: destination, owner: p.to, mint, systemProgram: key(SYSTEM_PROGRAM_ID), tokenProgram: program }),
    transferChecked(program, { source: key(route.source), mint, destination, owner: float.publicKey, amount: p.units, decimals: p.token.decimals }),
  ];
}
