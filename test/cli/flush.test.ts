// `satchel flush` as an operator runs it: the gateway's configuration from the environment (a
// watch-only ETH network on anvil with a relayer key file), its database in the data folder, and
// the command printing each transaction it sent; the funds land on the cold address.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress, keccak256, parseEther, stringToHex, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { runCli } from '../../src/cli/main.ts';
import { openStorage } from '../../src/db/dialect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { Registry } from '../../src/registry/index.ts';
import { evmDeposit } from '../../src/chain/evm/custody.ts';
import { factoryDeployment } from '../../src/chain/evm/forwarder/create2.ts';
import { CHAIN_ID, startAnvil, type Anvil } from '../chain/evm/anvil.ts';
import { MNEMONIC } from '../chain/evm/setup.ts';

const KEYS = ['SATCHEL_CONFIG', 'SATCHEL_DATA_DIR', 'SATCHEL_MNEMONIC', 'SATCHEL_NETWORKS', 'DATABASE_URL', 'SATCHEL_SIMULATOR'] as const;
const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
const dir = mkdtempSync(join(tmpdir(), 'satchel-cli-flush-'));
const cold = getAddress(`0x${keccak256(stringToHex('cli merchant cold')).slice(26)}`);
let anvil: Anvil;
let funded: Address;
let empty: Address;

async function satchel(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { log: (s) => out.push(s), error: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  anvil = await startAnvil();
  const relayerKey = generatePrivateKey();
  const keyFile = join(dir, 'eth-relayer.key');
  writeFileSync(keyFile, relayerKey);
  chmodSync(keyFile, 0o600);
  await anvil.wallet(0).sendTransaction({ to: privateKeyToAccount(relayerKey).address, value: parseEther('1') });
  await anvil.wallet(0).sendTransaction(factoryDeployment());
  const eth = Registry.load().network('ETH')!;
  const a = evmDeposit(eth, cold, 'custody-cli', 0);
  const b = evmDeposit(eth, cold, 'custody-cli', 1);
  funded = a.address as Address;
  empty = b.address as Address;
  await anvil.wallet(0).sendTransaction({ to: funded, value: parseEther('0.4') });
  await anvil.mine(2);

  const storage = openStorage({ sqlitePath: join(dir, 'satchel.sqlite') });
  await migrateToLatest(storage);
  for (const [i, d] of [a, b].entries()) {
    await storage.db.insertInto('addresses').values({ ...d, network: 'ETH', owner_kind: 'invoice', owner_id: `inv-${i}`, created_at: Date.now() }).execute();
  }
  await storage.close();

  Object.assign(process.env, {
    SATCHEL_CONFIG: '',
    SATCHEL_DATA_DIR: dir,
    SATCHEL_MNEMONIC: MNEMONIC,
    SATCHEL_SIMULATOR: '0',
    DATABASE_URL: '',
    SATCHEL_NETWORKS: JSON.stringify({
      ETH: { driver: 'evm', rpc_url: anvil.url, chain_id: CHAIN_ID, confirmations: 2, tokens: {}, relayer_key_file: keyFile, flush: { every_seconds: 0 } },
    }),
  });
});

afterAll(async () => {
  for (const k of KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('satchel flush', () => {
  it('flushes every funded forwarder of the network now and prints each transaction', async () => {
    const r = await satchel('flush', '--network', 'ETH');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^0x[0-9a-f]{64}  ${funded} -> ${cold}  0\\.4 ETH$`));
    expect(r.out).not.toContain(empty);
    await anvil.mine();
    const receipt = await anvil.pub.getTransactionReceipt({ hash: lines[0]!.slice(0, 66) as `0x${string}` });
    expect(receipt.status).toBe('success');
    expect(await anvil.pub.getBalance({ address: cold })).toBe(parseEther('0.4'));
    expect(await anvil.pub.getBalance({ address: funded })).toBe(0n);
  });

  it('answers bad input with a clear message', async () => {
    expect(await satchel('flush')).toMatchObject({ code: 2, err: expect.stringContaining('flush needs --network CODE') });
    expect(await satchel('flush', '--network', 'ETH', '--token', '0x1234')).toMatchObject({
      code: 2, err: '--token takes a token contract address (0x and 40 hex digits): 0x1234',
    });
    expect(await satchel('flush', '--network', 'ETH', '--bogus')).toMatchObject({ code: 2, err: expect.stringContaining("Unknown option '--bogus'") });
    expect(await satchel('flush', '--network', 'NOPE')).toMatchObject({ code: 2, err: expect.stringContaining('NOPE') });
    expect(await satchel('flush', '--network', 'btc')).toMatchObject({
      code: 2, err: 'BTC has no forwarders to flush: its driver (simulated) does not flush (EVM and TRON networks in watch-only custody do)',
    });
  });
});
