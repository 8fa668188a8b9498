// ERC-20 tokens the registry does not know, on the forwarders of a watch-only EVM network. The
// scanner ignores their transfers (they credit nothing), but what reached a forwarder is the
// merchant's and can only go to the merchant's cold address: the operator is told, once per token
// and forwarder, and moves it with `satchel flush --token` (./flush.ts).
import { decodeFunctionResult, encodeFunctionData, erc20Abi, getAddress, pad, type Address } from 'viem';
import { parseForwarderPath } from '../watch-paths.ts';
import { checkLogs } from './answers.ts';
import { hex, num, type RpcLog } from './rpc.ts';
import { TRANSFER_TOPIC, type EvmChain } from './chain.ts';

/** Blocks looked back the first time, and at most per round. */
const WINDOW = 5_000;
/** Recipient topics per eth_getLogs. */
const ADDRESSES_PER_QUERY = 100;

export class UnknownTokens {
  private from: number | null = null;
  private readonly reported = new Set<string>();
  private readonly decimalsOf = new Map<string, number>();

  constructor(private readonly c: EvmChain) {}

  /**
   * Logs the transfers to watched forwarders from contracts that are not the network's tokens, up
   * to the confirmation depth `safe`, a bounded window per call. Unlike the scanner's query, this
   * one is filtered by recipient: it runs once per flush round, not per block.
   */
  async report(safe: number): Promise<void> {
    const { c } = this;
    const forwarders = [...c.watched].filter(([, path]) => path.startsWith('forwarder:')).map(([a]) => a as Address);
    if (forwarders.length === 0) return;
    const from = this.from ?? Math.max(0, safe - WINDOW + 1);
    if (from > safe) return;
    const to = Math.min(safe, from + WINDOW - 1);
    for (let i = 0; i < forwarders.length; i += ADDRESSES_PER_QUERY) {
      const recipients = forwarders.slice(i, i + ADDRESSES_PER_QUERY).map((a) => pad(a));
      const raw = await c.rpc.call<unknown>('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), topics: [TRANSFER_TOPIC, null, recipients] }]);
      for (const l of checkLogs(raw, from, to) as RpcLog[]) {
        // ERC-721 transfers have a fourth topic; zero-value transfers are address-poisoning spam.
        if (l.removed || l.topics.length !== 3 || l.data.length !== 66 || BigInt(l.data) === 0n) continue;
        if (c.tokenByContract.has(l.address.toLowerCase())) continue;
        const forwarder = getAddress(`0x${l.topics[2]!.slice(26)}`);
        const token = getAddress(l.address);
        const key = `${token}:${forwarder}`;
        if (this.reported.has(key)) continue;
        this.reported.add(key);
        const cold = parseForwarderPath(c.watched.get(forwarder.toLowerCase()) ?? '')?.cold;
        c.log('warn', `evm: a token the registry does not know was paid to a forwarder; \`satchel flush --network ${c.code} --token ${token}\` moves it to the cold address`, {
          network: c.code, token, forwarder, cold, txid: l.transactionHash, block: num(l.blockNumber), units: BigInt(l.data).toString(),
        });
      }
    }
    this.from = to + 1;
  }

  /** decimals() of a token the registry does not know (0 when it does not answer: base units). */
  async decimals(contract: Address): Promise<number> {
    const known = this.decimalsOf.get(contract);
    if (known !== undefined) return known;
    try {
      const out = await this.c.rpc.ethCall({ to: contract, data: encodeFunctionData({ abi: erc20Abi, functionName: 'decimals' }) });
      const answer = decodeFunctionResult({ abi: erc20Abi, functionName: 'decimals', data: out });
      const d = answer <= 36 ? answer : 0;
      this.decimalsOf.set(contract, d);
      return d;
    } catch {
      // No decimals() (or no answer now): the amount is recorded in base units. The flush moves the
      // whole balance whatever the amount says.
      return 0;
    }
  }
}
