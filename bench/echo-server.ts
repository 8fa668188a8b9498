// The baseline: a plain Fastify JSON echo route, no database, same logger settings as the gateway.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.post('/echo', async (req) => ({ state: 0, result: req.body }));
const url = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`LISTENING ${url}\n`);
