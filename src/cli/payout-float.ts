// `satchel payout-float address --network CODE`: the address of a watch-only network's payout float,
// the account the operator funds (docs/custody.md). Read from the configuration and the float's key
// file alone, as the gateway reads them at start: no node and no database are needed, so the float
// can be funded before the gateway first runs. A float that is a wallet the operator runs (Monero's
// monero-wallet-rpc) holds its own keys: its address is asked of that wallet.
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import type { Families } from '../chain/family.ts';
import { floatAccount, payoutSource } from '../chain/payout-float.ts';
import { Registry } from '../registry/index.ts';

export const PAYOUT_FLOAT_USAGE = `  payout-float address --network CODE   print the address of a watch-only network's payout float (the account to fund)`;

type Out = { log: (s: string) => void; error: (s: string) => void };

export async function payoutFloatCli(action: string | undefined, args: string[], config: Pick<Config, 'networks' | 'payoutKeyFile' | 'registryFile'>, out: Out, families: Families): Promise<number> {
  if (action !== 'address') {
    out.error(`Usage:\n${PAYOUT_FLOAT_USAGE}`);
    return 2;
  }
  let network: string | undefined;
  try {
    ({ values: { network } } = parseArgs({ args, options: { network: { type: 'string' } }, allowPositionals: false, strict: true }));
  } catch (e) {
    out.error(`payout-float address: ${(e as Error).message}\nUsage:\n${PAYOUT_FLOAT_USAGE}`);
    return 2;
  }
  if (!network) {
    out.error(`payout-float address needs --network CODE\nUsage:\n${PAYOUT_FLOAT_USAGE}`);
    return 2;
  }
  try {
    const registry = Registry.load(config.registryFile).withNetworks((n) => families.configuredNetwork(n, config.networks[n.code]));
    const code = network.trim().toUpperCase();
    const net = registry.network(code);
    if (!net) throw new Error(`${network} is not a network of the registry`);
    const source = payoutSource(net, config.networks[code], families.of(net)?.payoutFloat, config.payoutKeyFile);
    if (source.kind === 'seed') throw new Error(`${code} runs in hot custody: its payouts come from the gateway's seed, it has no payout float`);
    if (source.kind === 'none') throw new Error(`${code} has no payout float: ${source.why}`);
    const ask = source.form.wallet?.address;
    out.log(source.settings.keyFile === null && ask ? await ask(net, config.networks[code]) : floatAccount(net, source).address);
    return 0;
  } catch (e) {
    out.error(`payout-float address: ${(e as Error).message}`);
    return 1;
  }
}
