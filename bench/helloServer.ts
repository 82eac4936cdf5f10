import Fastify from 'fastify';

// The baseline of the throughput benchmark: the smallest fastify service on this machine.
const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`hello server listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
