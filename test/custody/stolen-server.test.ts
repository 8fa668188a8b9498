// A stolen server cannot move received funds (docs/custody.md). A gateway runs ETH watch-only on
// anvil, with a relayer key file; a merchant's invoices are paid in ETH and USDT to forwarders of
// the merchant's cold address. Then the test takes everything the gateway has (its data folder,
// every row of every table, its configuration and environment, every secret file), finds every
// key-like string in it (BIP-39 mnemonics, 32-byte hex, WIF, extended private keys), derives from
// each the EVM addresses it controls on the standard paths, and shows none of them is a deposit
// address that received funds, or the cold address. With the one key that has gas (the relayer),
// the thief tries the factory with its own address as the destination (nothing moves), and then
// with the real cold address: the funds go to the merchant. Nothing else is possible.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createWalletClient, encodeFunctionData, getAddress, http, parseEther, parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { base58check } from '../../src/chain/address/base58.ts';
import { parseForwarderPath } from '../../src/chain/watch-paths.ts';
import { FACTORY_ABI, factoryAddress, factoryDeployment, forwarderAddress } from '../../src/chain/evm/forwarder/index.ts';
import { checkCustody, writeCustody } from '../../src/custody/store.ts';
import { backends } from '../helpers/backends.ts';
import { GATEWAY_MNEMONIC, startEvmGateway, type EvmGateway } from '../chain/gateway-setup.ts';

const WORDS = new Set(wordlist);
const STANDARD_PATHS = (coin: number) => [0, 1, 2].flatMap((account) => [0, 1].flatMap((change) => Array.from({ length: 30 }, (_, i) => `m/44'/${coin}'/${account}'/${change}/${i}`)));

/** Every file under `dir`, as text (binary files too: a key may sit in a database page). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(readFileSync(p).toString('latin1'));
  }
  return out;
}

/** The key-like strings in `text`, by kind. */
function keyLike(text: string): { mnemonics: string[]; hex: string[]; wif: string[]; xprv: string[] } {
  const words = text.toLowerCase().split(/[^a-z]+/);
  const mnemonics = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    for (const n of [12, 15, 18, 21, 24]) {
      const w = words.slice(i, i + n);
      if (w.length === n && w.every((x) => WORDS.has(x)) && validateMnemonic(w.join(' '), wordlist)) mnemonics.add(w.join(' '));
    }
  }
  const hex = new Set((text.match(/(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])/g) ?? []).map((h) => h.toLowerCase()));
  const wif = new Set(text.match(/(?<![1-9A-HJ-NP-Za-km-z])[5KLc9][1-9A-HJ-NP-Za-km-z]{50,51}(?![1-9A-HJ-NP-Za-km-z])/g) ?? []);
  const xprv = new Set(text.match(/[xtyzuvYZUV]prv[1-9A-HJ-NP-Za-km-z]{100,112}/g) ?? []);
  return { mnemonics: [...mnemonics], hex: [...hex], wif: [...wif], xprv: [...xprv] };
}

function evmAddressOf(privateKey: Uint8Array): string | null {
  if (!secp256k1.utils.isValidSecretKey(privateKey)) return null;
  return privateKeyToAccount(`0x${bytesToHex(privateKey)}`).address.toLowerCase();
}

describe.each(await backends())('a stolen watch-only server on $name', (backend) => {
  let g: EvmGateway;
  let secrets: string;
  const relayerKey = generatePrivateKey();
  const cold = privateKeyToAccount(generatePrivateKey()).address; // the merchant's cold wallet: its key is never on the server
  const thief = privateKeyToAccount(generatePrivateKey()).address;
  let deposits: Array<{ address: Address; path: string }> = [];

  beforeAll(async () => {
    secrets = mkdtempSync(join(tmpdir(), 'satchel-secrets-'));
    const relayerFile = join(secrets, 'eth-relayer.key');
    writeFileSync(relayerFile, `${relayerKey}\n`);
    chmodSync(relayerFile, 0o600);
    g = await startEvmGateway(backend, { confirmations: 1, network: { custody: 'watch-only', relayer_key_file: relayerFile, flush: { every_seconds: 0 } } });
    await g.anvil.wallet(0).sendTransaction({ to: privateKeyToAccount(relayerKey).address, value: parseEther('1') });
    const req = { merchantId: g.merchant.id, network: 'ETH', input: { address: cold }, actor: 'test', replace: false };
    const checked = await checkCustody(g.ctx, req);
    await g.ctx.storage.write((trx) => writeCustody(trx, req, checked, Date.now()));
    let n = 0;
    const invoice = async (body: Record<string, unknown>) => (await g.api('/v1/payment', { order_id: `stolen-${++n}`, network: 'ETH', ...body })).body.result;
    const eth = await invoice({ amount: '0.3', currency: 'ETH' });
    const usdt = await invoice({ amount: '40', currency: 'USDT' });
    await g.payNative(eth.address, '0.3');
    await g.payToken(usdt.address, '40');
    await g.mineAndTick(2);
    expect((await g.api('/v1/payment/info', { uuid: eth.uuid })).body.result.payment_status).toBe('paid');
    expect((await g.api('/v1/payment/info', { uuid: usdt.uuid })).body.result.payment_status).toBe('paid');
    deposits = (await g.ctx.storage.db.selectFrom('addresses').select(['address', 'path']).execute()).map((r) => ({ address: getAddress(r.address), path: r.path }));
  });
  afterAll(async () => {
    await g?.stopAll();
    rmSync(secrets, { recursive: true, force: true });
  });

  it('holds no key to any deposit address that received funds, nor to the cold address', async () => {
    // Everything the gateway has.
    const loot: string[] = [...filesUnder(g.config.dataDir), ...filesUnder(secrets)];
    loot.push(JSON.stringify({ ...g.config, mnemonic: g.config.mnemonic() }), JSON.stringify(g.network), GATEWAY_MNEMONIC);
    for (const t of await g.ctx.storage.db.introspection.getTables()) {
      loot.push(JSON.stringify(await g.ctx.storage.db.selectFrom(t.name as never).selectAll().execute(), (_, v) => (typeof v === 'bigint' ? String(v) : v)));
    }
    const found = keyLike(loot.join('\n'));
    expect(found.mnemonics).toContain(GATEWAY_MNEMONIC); // the search works: the gateway's seed is found
    expect(found.hex).toContain(relayerKey.slice(2)); // and so is the relayer key

    const controlled = new Set<string>();
    for (const m of found.mnemonics) {
      const root = HDKey.fromMasterSeed(mnemonicToSeedSync(m));
      for (const path of [...STANDARD_PATHS(60), ...STANDARD_PATHS(195), ...STANDARD_PATHS(0), ...STANDARD_PATHS(1)]) {
        const a = evmAddressOf(root.derive(path).privateKey!);
        if (a) controlled.add(a);
      }
    }
    for (const h of found.hex) {
      const a = evmAddressOf(Uint8Array.from(Buffer.from(h, 'hex')));
      if (a) controlled.add(a);
    }
    for (const w of found.wif) {
      try {
        const raw = base58check.decode(w);
        const a = evmAddressOf(raw.slice(1, 33));
        if (a) controlled.add(a);
      } catch {
        // not a WIF after all
      }
    }
    for (const x of found.xprv) {
      try {
        const k = HDKey.fromExtendedKey(x);
        for (let i = 0; i < 30; i++) for (const node of [k.deriveChild(i), k.deriveChild(0).deriveChild(i)]) {
          const a = node.privateKey ? evmAddressOf(node.privateKey) : null;
          if (a) controlled.add(a);
        }
      } catch {
        // not an extended key
      }
    }
    expect(controlled.size).toBeGreaterThan(100);
    expect(controlled.has(privateKeyToAccount(relayerKey).address.toLowerCase())).toBe(true);

    const funded: string[] = [];
    for (const d of deposits) {
      const eth = await g.anvil.pub.getBalance({ address: d.address });
      const usdt = await g.usdt.balanceOf(d.address);
      if (eth > 0n || usdt > 0n) funded.push(d.address.toLowerCase());
    }
    expect(funded).toHaveLength(2);
    for (const a of [...funded, cold.toLowerCase()]) expect(controlled.has(a)).toBe(false);
    // Deriving an address from every 64-hex string of a SQLite file (hashes, salts, ids) and 720
    // paths of each mnemonic is seconds of pure CPU, many more on a loaded machine: more time than
    // vitest's default, which would fail it for the machine's load, not for what it checks.
  }, 180_000);

  it("lets the thief's relayer key flush only to the merchant's cold address", async () => {
    const wallet = createWalletClient({ account: privateKeyToAccount(relayerKey), chain: g.anvil.chain, transport: http(g.anvil.url) });
    const send = async (to: Address, data: Hex) => {
      const hash = await wallet.sendTransaction({ to, data, gas: 1_500_000n });
      await g.anvil.mine();
      return g.anvil.pub.getTransactionReceipt({ hash });
    };
    // Anyone may deploy the factory (the same contract at the same address).
    await send(factoryDeployment().to, factoryDeployment().data);
    const funded = [];
    for (const d of deposits) {
      const f = parseForwarderPath(d.path)!;
      expect(getAddress(f.cold)).toBe(cold);
      if ((await g.anvil.pub.getBalance({ address: d.address })) > 0n || (await g.usdt.balanceOf(d.address)) > 0n) funded.push({ ...d, salt: f.salt });
    }
    const before = await Promise.all(funded.map(async (d) => [await g.anvil.pub.getBalance({ address: d.address }), await g.usdt.balanceOf(d.address)]));

    // The thief's own address as the destination: a different, empty forwarder; nothing moves.
    for (const d of funded) {
      const data = encodeFunctionData({ abi: FACTORY_ABI, functionName: 'flush', args: [thief, d.salt, [g.usdt.address], true] });
      await send(factoryAddress(), data);
      expect(forwarderAddress(thief, d.salt)).not.toBe(d.address);
    }
    const after = await Promise.all(funded.map(async (d) => [await g.anvil.pub.getBalance({ address: d.address }), await g.usdt.balanceOf(d.address)]));
    expect(after).toEqual(before);
    expect(await g.anvil.pub.getBalance({ address: thief })).toBe(0n);
    expect(await g.usdt.balanceOf(thief)).toBe(0n);

    // The only move there is: to the cold address.
    for (const d of funded) {
      const data = encodeFunctionData({ abi: FACTORY_ABI, functionName: 'flush', args: [cold, d.salt, [g.usdt.address], true] });
      expect((await send(factoryAddress(), data)).status).toBe('success');
    }
    expect(await g.anvil.pub.getBalance({ address: cold })).toBe(parseEther('0.3'));
    expect(await g.usdt.balanceOf(cold)).toBe(parseUnits('40', 6));
    for (const d of funded) {
      expect(await g.anvil.pub.getBalance({ address: d.address })).toBe(0n);
      expect(await g.usdt.balanceOf(d.address)).toBe(0n);
    }
  });
});
