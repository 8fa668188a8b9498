import { loadConfig } from './config.ts';
import { demoBanner, startGateway } from './server.ts';

const config = loadConfig();
const gw = await startGateway(config);
if (gw.demo) console.log('\n' + demoBanner(config, gw.demo) + '\n');
console.log(`Satchel is listening on ${gw.url} (public URL ${config.publicUrl})`);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) process.exit(1);
    closing = true;
    gw.close().then(() => process.exit(0), () => process.exit(1));
  });
}
