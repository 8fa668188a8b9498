// The simulated family: the default driver of every network, in test mode and before an operator
// configures a node. It serves networks of any family (their addresses and transaction ids keep
// their own family's shape), so no registry network names it as its family. It brings the address
// formats of the networks that no other family runs yet (from those families' folders); a family
// that runs one brings its format itself.
import type { ChainFamily } from '../family.ts';
import { solanaAddressFormat } from '../solana/address-format.ts';
import { simulatedDriverFactory } from './driver.ts';

export { simulatedDriverFactory, simTxid, nextRev, SimulatedDriver } from './driver.ts';

export const simulatedFamily: ChainFamily = {
  name: 'simulated',
  drivers: { simulated: simulatedDriverFactory },
  addressFormats: { solana: solanaAddressFormat },
  custody: ['seed'],
};
