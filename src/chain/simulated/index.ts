// The simulated family: the default driver of every network, in test mode and before an operator
// configures a node. It serves networks of any family (their addresses and transaction ids keep
// their own family's shape), so no registry network names it as its family. Every network's address
// format comes from its own family.
import type { ChainFamily } from '../family.ts';
import { simulatedDriverFactory } from './driver.ts';

export { simulatedDriverFactory, simTxid, nextRev, SimulatedDriver } from './driver.ts';

export const simulatedFamily: ChainFamily = {
  name: 'simulated',
  drivers: { simulated: simulatedDriverFactory },
  custody: ['seed'],
};
