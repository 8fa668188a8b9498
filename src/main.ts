import { loadConfig } from './config.ts';
import { demoBanner, startGateway } from './server.ts';
import { demoLink } from './demo/index.ts';
import { demoDashboardBanner } from './dashboard/demo.ts';

const config = loadConfig();
const gw = await startGateway(config);
if (gw.demo) console.log('\n' + demoBanner(config, gw.demo) + '\n' + (await demoDashboardBanner(gw.ctx, gw.demo)) + '\n');
if (gw.url) console.log(`Satchel is listening on ${gw.url} (public URL ${config.publicUrl})`);
else console.log('Satchel worker started (role worker: no HTTP server)');
if (gw.url) {
  const demo = await demoLink(gw.ctx);
  if (demo) console.log(demo);
}

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) process.exit(1);
    closing = true;
    gw.close().then(() => process.exit(0), () => process.exit(1));
  });
}
