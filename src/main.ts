import { ConfigError, loadConfig, type Config } from './config.ts';
import { demoBanner, startGatewayWhenDatabaseAnswers } from './server.ts';
import { demoLink } from './demo/index.ts';
import { demoDashboardBanner } from './dashboard/demo.ts';
import { formatNetworkTable } from './chain/network-report.ts';

let config: Config;
try {
  config = loadConfig();
} catch (e) {
  if (!(e instanceof ConfigError)) throw e;
  console.error(`satchel: ${e.message}`);
  process.exit(1);
}
// A database that does not answer yet (it restarts, or starts after the gateway) is waited for,
// up to SATCHEL_DB_START_WAIT_MS; then the start fails as before.
const gw = await startGatewayWhenDatabaseAnswers(config, { waitMs: config.dbStartWaitMs, say: (line) => console.error(line) }).catch((e: unknown) => {
  if (!(e instanceof ConfigError)) throw e;
  console.error(`satchel: ${e.message}`);
  process.exit(1);
});
console.log('Networks:\n' + formatNetworkTable(gw.networks) + '\n');
if (gw.url) console.log(`Satchel is listening on ${gw.url} (public URL ${config.publicUrl})`);
else console.log('Satchel worker started (role worker: no HTTP server)');
if (gw.url) {
  const demo = await demoLink(gw.ctx);
  if (demo) console.log(demo);
}
// The first start's banner comes last, after the server's own lines, so the keys and the
// dashboard link are what the terminal ends on.
if (gw.demo) console.log('\n' + demoBanner(config, gw.demo) + '\n' + (await demoDashboardBanner(gw.ctx, gw.demo)) + '\n');

// Graceful shutdown (a rolling restart): finish or hand back the work in hand, then exit. A second
// signal, or a shutdown longer than SATCHEL_SHUTDOWN_TIMEOUT_MS, exits at once; what was left
// claimed then waits out its lease and is taken by another process.
let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) process.exit(1);
    closing = true;
    console.log(`${signal}: shutting down`);
    setTimeout(() => process.exit(1), config.shutdownTimeoutMs).unref();
    gw.close().then(() => process.exit(0), () => process.exit(1));
  });
}
