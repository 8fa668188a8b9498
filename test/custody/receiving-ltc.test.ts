// Watch-only receiving on litecoind regtest through the whole gateway: the merchant gives a vpub
// (a BIP-84 account key the test made from its own mnemonic); invoices get the key's receiving
// addresses; payments are detected and credited; then the merchant spends them with the private
// keys only it holds, proving the funds are the merchant's, with no key of the gateway involved and
// no alarm. Payouts on the network are refused (no Bitcoin-family payout float).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HDKey } from '@scure/bip32';
import { generateMnemonic, mnemonicToSeedSync } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { Address, OutScript, Transaction, p2wpkh } from '@scure/btc-signer';
import { checkCustody, writeCustody } from '../../src/custody/store.ts';
import { balanceOf } from '../../src/ledger/index.ts';
import { backends } from '../helpers/backends.ts';
import { REGTEST, sats, Payer } from '../chain/bitcoin/litecoind.ts';
import { startLtcGateway, type LtcGateway } from '../chain/gateway-setup.ts';

const VPUB = { public: 0x045f1cf6, private: 0x045f18bc };
const ACCOUNT = "m/84'/1'/0'";

describe.each(await backends())('watch-only receiving on litecoind through the gateway ($name)', (backend) => {
  let g: LtcGateway;
  let n = 0;
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(generateMnemonic(wordlist)), VPUB);
  const vpub = root.derive(ACCOUNT).publicExtendedKey;
  const receiving = (i: number) => {
    const node = root.derive(`${ACCOUNT}/0/${i}`);
    const p = p2wpkh(node.publicKey!, REGTEST.net);
    return { key: node.privateKey!, address: p.address!, script: p.script };
  };

  beforeAll(async () => {
    g = await startLtcGateway(backend, { confirmations: 1, network: { custody: 'watch-only' } });
  });
  afterAll(async () => {
    await g?.stopAll();
  });

  it('credits payments to the merchant\'s own addresses, which the merchant alone can spend', async () => {
    const invoice = () => g.api('/v1/payment', { amount: '0.5', currency: 'LTC', network: 'LTC', order_id: `ltc-wo-${++n}` });
    expect((await invoice()).body).toMatchObject({ state: 1, message: 'Wallet not found' });

    const req = { merchantId: g.merchant.id, network: 'LTC', input: { xpub: vpub }, actor: 'test', replace: false };
    const checked = await checkCustody(g.ctx, req);
    await g.ctx.storage.write((trx) => writeCustody(trx, req, checked, Date.now()));

    const inv = (await invoice()).body.result;
    // The merchant's own wallet knows this address: one of its key's first receiving addresses.
    const index = Array.from({ length: 100 }, (_, i) => i).find((i) => receiving(i).address === inv.address);
    expect(index).toBeDefined();

    const paid = await g.payer.pay([{ address: inv.address, amount: '0.5' }]);
    await g.mineAndTick();
    const info = (await g.api('/v1/payment/info', { uuid: inv.uuid })).body.result;
    expect(info).toMatchObject({ payment_status: 'paid', payment_amount: '0.50', txid: paid.txid });
    expect(await balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'LTC')).not.toBe('0');

    // The merchant spends it with its own key.
    const own = receiving(index!);
    const tx = await g.node.rpc<{ vout: Array<{ n: number; value: number; scriptPubKey: { address?: string; addresses?: string[] } }> }>('decoderawtransaction', paid.hex);
    const out = tx.vout.find((o) => (o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0]) === inv.address)!;
    const spend = new Transaction();
    spend.addInput({ txid: paid.txid, index: out.n, witnessUtxo: { script: own.script, amount: sats('0.5') } });
    spend.addOutput({ script: OutScript.encode(Address(REGTEST.net).decode(Payer.elsewhere())), amount: sats('0.5') - 10_000n });
    spend.signIdx(own.key, 0);
    spend.finalize();
    await g.node.rpc('sendrawtransaction', spend.hex);
    await g.mineAndTick();
    expect(await g.node.rpc('gettxout', paid.txid, out.n)).toBeNull();
    // Spent by its owner: nothing to alarm about, and the invoice stays paid.
    const alarms = await g.ctx.storage.db.selectFrom('chain_incidents').selectAll().where('network', '=', 'LTC').execute();
    expect(alarms).toEqual([]);
    expect((await g.api('/v1/payment/info', { uuid: inv.uuid })).body.result.payment_status).toBe('paid');
  });

  it('refuses a payout on the watch-only network (no Bitcoin-family float): 422, nothing debited', async () => {
    const before = await balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'LTC');
    const r = await g.api('/v1/payout', { amount: '0.1', currency: 'LTC', network: 'LTC', order_id: 'ltc-wo-payout', address: Payer.elsewhere(), is_subtract: true }, { key: 'payout' });
    expect(r.status).toBe(422);
    expect(r.body.state).toBe(1);
    expect(r.body.message).toMatch(/float/i);
    expect(await balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'LTC')).toBe(before);
    expect(await g.ctx.storage.db.selectFrom('payouts').select('id').execute()).toEqual([]);
  });
});
