// The three instructions a payout is made of, encoded as their programs read them:
// - System Program `Transfer` (index 2): u32 LE 2, u64 LE lamports; [from (signer, writable), to (writable)].
// - SPL Token `TransferChecked` (12): u8 12, u64 LE amount, u8 decimals; [source (writable), mint,
//   destination (writable), owner (signer)]. The checked form makes the token program refuse a
//   transfer whose mint or decimals are not the ones named, so a wrong registry entry or override
//   cannot move a different token or a different amount. Same layout in Token-2022.
// - Associated Token Account `CreateIdempotent` (1): [payer (signer, writable), account (writable),
//   owner, mint, System Program, token program]: creates the recipient's token account when it is
//   missing (the payer funds its rent) and does nothing when it exists.
import type { Instruction } from './tx.ts';

function u64le(v: bigint, what: string): Uint8Array {
  if (v < 0n || v > 0xffff_ffff_ffff_ffffn) throw new RangeError(`${what} out of the u64 range`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, v, true);
  return out;
}

export function systemTransfer(systemProgram: Uint8Array, from: Uint8Array, to: Uint8Array, lamports: bigint): Instruction {
  const data = new Uint8Array(12);
  new DataView(data.buffer).setUint32(0, 2, true);
  data.set(u64le(lamports, 'lamports'), 4);
  return {
    programId: systemProgram,
    accounts: [
      { key: from, signer: true, writable: true },
      { key: to, signer: false, writable: true },
    ],
    data,
  };
}

export function transferChecked(tokenProgram: Uint8Array, a: { source: Uint8Array; mint: Uint8Array; destination: Uint8Array; owner: Uint8Array; amount: bigint; decimals: number }): Instruction {
  if (!Number.isInteger(a.decimals) || a.decimals < 0 || a.decimals > 255) throw new RangeError('decimals out of the u8 range');
  const data = new Uint8Array(10);
  data[0] = 12;
  data.set(u64le(a.amount, 'amount'), 1);
  data[9] = a.decimals;
  return {
    programId: tokenProgram,
    accounts: [
      { key: a.source, signer: false, writable: true },
      { key: a.mint, signer: false, writable: false },
      { key: a.destination, signer: false, writable: true },
      { key: a.owner, signer: true, writable: false },
    ],
    data,
  };
}

export function createAssociatedTokenIdempotent(
  ataProgram: Uint8Array,
  a: { payer: Uint8Array; account: Uint8Array; owner: Uint8Array; mint: Uint8Array; systemProgram: Uint8Array; tokenProgram: Uint8Array },
): Instruction {
  return {
    programId: ataProgram,
    accounts: [
      { key: a.payer, signer: true, writable: true },
      { key: a.account, signer: false, writable: true },
      { key: a.owner, signer: false, writable: false },
      { key: a.mint, signer: false, writable: false },
      { key: a.systemProgram, signer: false, writable: false },
      { key: a.tokenProgram, signer: false, writable: false },
    ],
    data: Uint8Array.of(1),
  };
}
