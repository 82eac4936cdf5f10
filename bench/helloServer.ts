import Fastify from 'fastify';

// The baselines of the throughput benchmark: the smallest fastify service on this machine, and
// the same service taking a send's request (POST, the same headers and JSON body) and answering
// it as a send is answered (202, one result), with none of the send's work: what fastify and
// Node's HTTP stack cost for that request shape before any of the reference's own code runs.
const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
app.post('/api/core/messages/send', async (request, reply) => {
  const { to } = request.body as { to: string[] };
  return reply.code(202).send({ results: [{ to: to[0], messageId: 'msg_01JXXXXXXXXXXXXXXXXXXXXXXX', status: 'QUEUED' }], errors: [] });
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`hello server listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
