// The relayer of a watch-only EVM network: the key that pays the gas of flushes (./flush.ts) and,
// once per chain, of the forwarder factory's deployment. It signs nothing that moves funds of its
// own but gas: its transactions go through the driver's outgoing machinery (./outgoing.ts: nonces
// re-read from the node, stored before broadcast, rebroadcast, receipts) like every other.
import { randomUUID } from 'node:crypto';
import type { Address } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { HotWalletShortError } from '../errors.ts';
import { DEPLOYMENT_PROXY, factoryAddress, factoryDeployment } from './forwarder/index.ts';
import { hex, type BlockTag } from './rpc.ts';
import type { Call, EvmChain, Fees } from './chain.ts';
import type { EvmOutgoing } from './outgoing.ts';

export class Relayer {
  private factoryReady = false;
  private proxyMissingLogged = false;

  constructor(
    private readonly c: EvmChain,
    private readonly out: EvmOutgoing,
    readonly account: PrivateKeyAccount,
  ) {}

  get address(): Address {
    return this.account.address;
  }

  /**
   * Whether the factory has code at the confirmation depth (`safe`), so that flushes may be sent: a
   * call to an address without code succeeds and does nothing. When it is absent, the relayer
   * deploys it through the deterministic deployment proxy, once; flushing starts the round after
   * that is final. Returns null when ready, else what stands in the way.
   */
  async factoryOnChain(safe: number): Promise<string | null> {
    if (this.factoryReady) return null;
    const { c } = this;
    const factory = factoryAddress();
    if (await this.hasCode(factory, hex(safe))) {
      this.factoryReady = true;
      return null;
    }
    const pending = await c.db
      .selectFrom('scan_outgoing')
      .select('txid')
      .where('network', '=', c.code)
      .where('kind', '=', 'deploy')
      .where('status', 'in', ['signed', 'sent', 'mined', 'confirmed'])
      .executeTakeFirst();
    if (pending || (await this.hasCode(factory, 'latest'))) {
      return `The forwarder factory ${factory} is being deployed${pending ? ` (transaction ${pending.txid})` : ''}: flushing starts once it has ${c.confirmations} confirmations`;
    }
    if (!(await this.hasCode(DEPLOYMENT_PROXY, 'latest'))) {
      const msg = `The deterministic deployment proxy ${DEPLOYMENT_PROXY} is absent on ${c.code}: the forwarder factory cannot be deployed, so nothing is flushed`;
      if (!this.proxyMissingLogged) c.log('error', msg, { network: c.code, proxy: DEPLOYMENT_PROXY });
      this.proxyMissingLogged = true;
      return msg;
    }
    const deployment = factoryDeployment();
    const call: Call = { to: deployment.to, value: 0n, data: deployment.data };
    const plan = await this.gasPlan(call, 'the forwarder factory deployment');
    const row = await this.out.signAndStore({
      requestId: `factory:${factory}:${randomUUID()}`,
      kind: 'deploy',
      account: this.account,
      call,
      currency: c.native.code,
      toAddress: factory,
      amount: '0',
      priority: 'recommended',
      ...plan,
    });
    await this.out.firstBroadcast(row);
    c.log('info', 'evm flush: the forwarder factory deployment was sent', { network: c.code, factory, txid: row.txid });
    return `The forwarder factory ${factory} was absent: its deployment was sent (transaction ${row.txid}); flushing starts once it has ${c.confirmations} confirmations`;
  }

  /** Gas for a relayer call, and a refusal before signing when the relayer cannot pay for it: a
   * stored transaction the node refuses would hold up every later nonce. */
  async gasPlan(call: Call, what: string): Promise<{ gas: bigint; fees: Fees }> {
    const { c } = this;
    const short = () => new HotWalletShortError(c.native.code, `The relayer ${this.address} lacks ${c.native.code} for the gas of ${what}`);
    const fees = await c.fees('recommended');
    let gas: bigint;
    try {
      gas = await c.estimate(this.address, call);
    } catch (err) {
      if (err instanceof HotWalletShortError) throw short();
      throw err;
    }
    const balance = await c.rpc.balance(this.address, 'pending');
    if (balance < gas * fees.maxFeePerGas) throw short();
    return { gas, fees };
  }

  private async hasCode(address: Address, tag: BlockTag): Promise<boolean> {
    const code = await this.c.rpc.call<unknown>('eth_getCode', [address, tag]);
    return typeof code === 'string' && code !== '0x' && code !== '0x0';
  }
}
