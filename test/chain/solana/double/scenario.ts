// Test-only payers and payments for the Solana double, built and signed with @solana/kit and the
// System/Token program clients exactly as a Solana Pay wallet builds them: a System transfer (or
// an SPL Token transferChecked to the recipient's associated token account) with the invoice's
// reference appended as an extra read-only, non-signer account key of the transfer instruction.
// Everything goes through the double's JSON-RPC (kit's RPC client), so the double serves the
// payments the way a node would.
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import type { SolanaDouble } from './server.ts';

export const LAMPORTS_PER_SOL = 1_000_000_000n;

export interface Mint {
  address: Address;
  decimals: number;
}

/** One transfer inside a payment: SOL to a wallet, or a token (by mint) to the wallet's ATA. */
export interface Part {
  to: string;
  amount: bigint;
  /** Reference keys appended to this transfer instruction (Solana Pay puts them on the transfer). */
  references?: string[];
  mint?: Mint;
  /** Send tokens to this token account instead of the recipient's ATA (must already exist). */
  tokenAccount?: string;
}

export interface Scenario {
  readonly rpc: ReturnType<typeof createSolanaRpc>;
  /** A new keypair funded with `sol` lamports (default 10 SOL) by an airdrop into LiteSVM. */
  payer(sol?: bigint): Promise<KeyPairSigner>;
  /** A fresh reference key (a random public key; nobody holds its secret). */
  reference(): Promise<string>;
  /** A mint made in the test (USDC/USDT stand-ins, or a look-alike), 6 decimals by default. */
  mint(decimals?: number): Promise<Mint>;
  ata(owner: string, mint: Mint): Promise<Address>;
  /** Mints tokens to an owner's ATA (created when missing). */
  mintTo(mint: Mint, owner: string, amount: bigint): Promise<void>;
  /** Creates an owner's ATA for a mint (funded by a scenario payer). */
  createAta(owner: string, mint: Mint): Promise<Address>;
  /** Signs and sends one transaction with the given transfers; returns its signature. */
  pay(from: KeyPairSigner, parts: Part[], opts?: { skipPreflight?: boolean; createAtas?: boolean }): Promise<string>;
  paySol(from: KeyPairSigner, to: string, amount: bigint, references?: string[]): Promise<string>;
  payToken(from: KeyPairSigner, to: string, mint: Mint, amount: bigint, references?: string[]): Promise<string>;
  /** Sends raw instructions signed by `from` (and any signers in their account metas). */
  send(from: KeyPairSigner, ixs: Instruction[], opts?: { skipPreflight?: boolean }): Promise<string>;
}

function withReferences(ix: Instruction, refs: string[] | undefined): Instruction {
  if (!refs || refs.length === 0) return ix;
  return { ...ix, accounts: [...(ix.accounts ?? []), ...refs.map((r) => ({ address: address(r), role: AccountRole.READONLY }))] };
}

export function scenario(double: SolanaDouble): Scenario {
  const rpc = createSolanaRpc(double.url);
  let funder: KeyPairSigner | null = null;
  let mintAuthority: KeyPairSigner | null = null;

  const payer = async (sol = 10n * LAMPORTS_PER_SOL) => {
    const kp = await generateKeyPairSigner();
    double.chain.svm.airdrop(kp.address, lamports(sol));
    return kp;
  };
  const getFunder = async () => (funder ??= await payer(1000n * LAMPORTS_PER_SOL));
  const getAuthority = async () => (mintAuthority ??= await payer(LAMPORTS_PER_SOL));

  const send = async (from: KeyPairSigner, ixs: Instruction[], opts?: { skipPreflight?: boolean }) => {
    const { value: bh } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const tx = await pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayerSigner(from, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(bh, m),
      (m) => appendTransactionMessageInstructions(ixs, m),
      (m) => signTransactionMessageWithSigners(m),
    );
    const sig = await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64', skipPreflight: opts?.skipPreflight ?? false }).send();
    if (sig !== getSignatureFromTransaction(tx)) throw new Error('the double answered another signature');
    return sig;
  };

  const ata = async (owner: string, mint: Mint) => (await findAssociatedTokenPda({ owner: address(owner), mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];

  const createAta = async (owner: string, mint: Mint) => {
    const f = await getFunder();
    const account = await ata(owner, mint);
    await send(f, [getCreateAssociatedTokenIdempotentInstruction({ payer: f, ata: account, owner: address(owner), mint: mint.address })]);
    return account;
  };

  const pay = async (from: KeyPairSigner, parts: Part[], opts?: { skipPreflight?: boolean; createAtas?: boolean }) => {
    const ixs: Instruction[] = [];
    for (const p of parts) {
      if (!p.mint) {
        ixs.push(withReferences(getTransferSolInstruction({ source: from, destination: address(p.to), amount: lamports(p.amount) }), p.references));
        continue;
      }
      const source = await ata(from.address, p.mint);
      const destination = p.tokenAccount ? address(p.tokenAccount) : await ata(p.to, p.mint);
      if (opts?.createAtas && !p.tokenAccount) ixs.push(getCreateAssociatedTokenIdempotentInstruction({ payer: from, ata: destination, owner: address(p.to), mint: p.mint.address }));
      const ix = getTransferCheckedInstruction({ source, mint: p.mint.address, destination, authority: from, amount: p.amount, decimals: p.mint.decimals });
      ixs.push(withReferences(ix, p.references));
    }
    return send(from, ixs, opts);
  };

  return {
    rpc,
    payer,
    reference: async () => (await generateKeyPairSigner()).address,
    async mint(decimals = 6) {
      const f = await getFunder();
      const authority = await getAuthority();
      const m = await generateKeyPairSigner();
      const space = BigInt(getMintSize());
      const rent = double.chain.svm.minimumBalanceForRentExemption(space);
      await send(f, [
        getCreateAccountInstruction({ payer: f, newAccount: m, lamports: lamports(rent), space, programAddress: TOKEN_PROGRAM_ADDRESS }),
        getInitializeMint2Instruction({ mint: m.address, decimals, mintAuthority: authority.address }),
      ]);
      return { address: m.address, decimals };
    },
    ata,
    createAta,
    async mintTo(mint, owner, amount) {
      const account = await createAta(owner, mint);
      const f = await getFunder();
      await send(f, [getMintToInstruction({ mint: mint.address, token: account, mintAuthority: await getAuthority(), amount })]);
    },
    pay,
    paySol: (from, to, amount, references) => pay(from, [{ to, amount, references }]),
    payToken: (from, to, mint, amount, references) => pay(from, [{ to, amount, references, mint }], { createAtas: true }),
    send,
  };
}
