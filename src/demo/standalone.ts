// The demo shop on its own origin, as a merchant runs it: it knows only the gateway's URL and its
// merchant id and payment key. Used by the cross-origin browser tests (e2e/widget.spec.ts).
//
//   SATCHEL_GATEWAY_URL=http://127.0.0.1:8080 SATCHEL_DEMO_MERCHANT=<merchant id> \
//   SATCHEL_DEMO_PAYMENT_KEY=<payment key> PORT=8090 npx tsx src/demo/standalone.ts
import Fastify from 'fastify';
import { fetchTransport, merchantClient } from './merchant-client.ts';
import { shopRoutes } from './shop.ts';

function required(name: string): string {
  const value = process.env[name]?.trim();
  if (!value) {
    console.error(`Set ${name} (see the comment at the top of src/demo/standalone.ts).`);
    process.exit(2);
  }
  return value;
}

const gatewayUrl = required('SATCHEL_GATEWAY_URL');
const client = merchantClient(required('SATCHEL_DEMO_MERCHANT'), required('SATCHEL_DEMO_PAYMENT_KEY'), fetchTransport(gatewayUrl));
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 8090);

const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'warn' } });
app.get('/', async (_req, reply) => reply.redirect('/demo'));
let address = '';
// SATCHEL_SHOP_URL: the shop's public URL when it runs behind a proxy; else the address it listens on.
const shopUrl = () => `${(process.env.SATCHEL_SHOP_URL?.trim() || address).replace(/\/+$/, '')}/demo`;
await shopRoutes(app, { base: '/demo', gatewayUrl, shopUrl, client: async () => client });
address = await app.listen({ host, port });
console.log(`Satchel demo shop listening on ${address}/demo (gateway ${gatewayUrl})`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void app.close().then(() => process.exit(0)));
}
