// Simulated money must never reach a balance that real payouts draw on. config.ts refuses test
// mode beside a real network; this refuses the other way in: a database that already holds
// payments made with the simulator (an earlier test-mode run) is not started with a real network.
import { realNetworkCodes, ConfigError, type Config } from '../../config.ts';
import type { Storage } from '../../db/dialect.ts';

export async function refuseSimulatedMoneyBesideRealNetworks(config: Config, storage: Storage): Promise<void> {
  const real = realNetworkCodes(config.networks);
  if (real.length === 0) return;
  const row = await storage.db.selectFrom('sim_transactions').select('txid').limit(1).executeTakeFirst();
  if (!row) return;
  throw new ConfigError(
    `This database holds payments made with the simulator (test mode), and real networks are configured (${real.join(', ')}): ` +
      'simulated money would reach balances that real payouts draw on. Start the real networks on a fresh database ' +
      '(a new SATCHEL_DATA_DIR or DATABASE_URL), or keep every network simulated.',
  );
}
