// Test helpers: a real anvil node on a loopback port, the project's TestToken compiled with solc
// (npm), and viem clients to drive real transactions.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type Abi,
  type Hex,
  type PublicClient,
  type WalletClient,
  type Account,
  type Chain,
  type Transport,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';

const require = createRequire(import.meta.url);
const ANVIL_BIN = fileURLToPath(new URL('../../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', import.meta.url));
const TOKEN_SOURCE = fileURLToPath(new URL('../../fixtures/contracts/TestToken.sol', import.meta.url));

/** anvil's well-known development mnemonic: its first account is the funded "payer". */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
export const CHAIN_ID = 31337;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface Anvil {
  url: string;
  chain: Chain;
  pub: PublicClient<Transport, Chain>;
  /** Wallet clients for anvil's dev accounts (index 0 is the default payer). */
  wallet(index?: number): WalletClient<Transport, Chain, Account>;
  account(index?: number): Account;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  mine(blocks?: number): Promise<void>;
  head(): Promise<number>;
  stop(): Promise<void>;
}

export async function startAnvil(opts: { automine?: boolean } = {}): Promise<Anvil> {
  let lastErr: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const args = ['--port', String(port), '--host', '127.0.0.1', '--silent', '--chain-id', String(CHAIN_ID), '--accounts', '5'];
    if (!opts.automine) args.push('--no-mining');
    const proc = spawn(ANVIL_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    // Never outlive the test process, even if it dies before afterAll.
    const onExit = () => proc.kill('SIGKILL');
    process.once('exit', onExit);
    proc.once('exit', () => process.removeListener('exit', onExit));
    let stderr = '';
    proc.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitForRpc(url, proc);
      return makeAnvil(url, proc);
    } catch (err) {
      lastErr = new Error(`anvil did not start: ${String(err)} ${stderr}`);
      proc.kill('SIGKILL');
    }
  }
  throw lastErr;
}

async function rawRpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

async function waitForRpc(url: string, proc: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`anvil exited with ${proc.exitCode}`);
    try {
      await rawRpc(url, 'eth_chainId');
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  throw new Error('timeout');
}

function makeAnvil(url: string, proc: ChildProcess): Anvil {
  const chain = defineChain({
    id: CHAIN_ID,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const transport = http(url, { retryCount: 0 });
  const pub = createPublicClient({ chain, transport }) as PublicClient<Transport, Chain>;
  const account = (i = 0) => mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: i });
  return {
    url,
    chain,
    pub,
    account,
    wallet: (i = 0) => createWalletClient({ chain, transport, account: account(i) }),
    rpc: (method, params) => rawRpc(url, method, params),
    async mine(blocks = 1) {
      await rawRpc(url, 'anvil_mine', [`0x${blocks.toString(16)}`]);
    },
    async head() {
      return Number(await pub.getBlockNumber({ cacheTime: 0 }));
    },
    async stop() {
      if (proc.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
        setTimeout(() => proc.kill('SIGKILL'), 2000).unref();
      });
    },
  };
}

interface Compiled {
  abi: Abi;
  bytecode: Hex;
}
/** The token contracts of TestToken.sol: the plain one, one with EIP-2612 permit, one with USDT's approve rule. */
export type TokenKind = 'TestToken' | 'PermitToken' | 'StrictApproveToken';
/** Everything TestToken.sol holds: the tokens and an EIP-1271 contract wallet. */
export type FixtureContract = TokenKind | 'TestContractWallet';
let compiledAll: Record<FixtureContract, Compiled> | undefined;

/** Compiles test/fixtures/contracts/TestToken.sol (see compileTokens) and answers TestToken. */
export function compileTestToken(): Compiled {
  return compileTokens().TestToken;
}

/**
 * Compiles test/fixtures/contracts/TestToken.sol with solc (the npm JS compiler). Loading solc
 * takes seconds, so the output is cached in the temp folder, keyed by the source and solc version.
 */
export function compileTokens(): Record<FixtureContract, Compiled> {
  if (compiledAll) return compiledAll;
  const source = readFileSync(TOKEN_SOURCE, 'utf8');
  const solcVersion = (require('solc/package.json') as { version: string }).version;
  const key = createHash('sha256').update(`${solcVersion}\n${source}`).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'satchel-test-solc');
  const file = join(dir, `TestTokens-${key}.json`);
  try {
    compiledAll = JSON.parse(readFileSync(file, 'utf8')) as Record<FixtureContract, Compiled>;
    return compiledAll;
  } catch {
    // not cached yet
  }
  const solc = require('solc') as { compile(input: string): string };
  const input = {
    language: 'Solidity',
    sources: { 'TestToken.sol': { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const one = (name: FixtureContract): Compiled => {
    const c = out.contracts['TestToken.sol']![name]!;
    return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  };
  const all = { TestToken: one('TestToken'), PermitToken: one('PermitToken'), StrictApproveToken: one('StrictApproveToken'), TestContractWallet: one('TestContractWallet') };
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(all));
  renameSync(tmp, file);
  compiledAll = all;
  return all;
}

export interface TestToken {
  address: `0x${string}`;
  decimals: number;
  mint(to: string, units: bigint): Promise<Hex>;
  transfer(from: number, to: string, units: bigint): Promise<Hex>;
  balanceOf(who: string): Promise<bigint>;
}

/** Deploys a TestToken (or one of its variants; mines its own block) and returns helpers around it. */
export async function deployToken(anvil: Anvil, symbol: string, decimals: number, kind: TokenKind = 'TestToken'): Promise<TestToken> {
  const { abi, bytecode } = compileTokens()[kind];
  const w = anvil.wallet(0);
  const hash = await w.deployContract({ abi, bytecode, args: [`Test ${symbol}`, symbol, decimals] });
  await anvil.mine();
  const receipt = await anvil.pub.getTransactionReceipt({ hash });
  const address = receipt.contractAddress!;
  return {
    address,
    decimals,
    mint: (to, units) =>
      w.writeContract({ address, abi, functionName: 'mint', args: [to as `0x${string}`, units] }),
    transfer: (from, to, units) =>
      anvil.wallet(from).writeContract({ address, abi, functionName: 'transfer', args: [to as `0x${string}`, units], gas: 100_000n }),
    balanceOf: async (who) =>
      (await anvil.pub.readContract({ address, abi, functionName: 'balanceOf', args: [who as `0x${string}`] })) as bigint,
  };
}
