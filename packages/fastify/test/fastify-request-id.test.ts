import { Writable } from 'node:stream';
import { send } from '@ambient/conformance';
import fastify, { type FastifyRequest } from 'fastify';
import { fastifyContext, requestContext } from '@ambient/fastify-context';

async function serve(app: ReturnType<typeof fastify>): Promise<{ port: number; close: () => Promise<unknown> }> {
  app.get('/', async (request: FastifyRequest) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    request.log.info('inside the handler');
    return { fastifyId: request.id, ambientId: requestContext.get('requestId') };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, close: () => app.close() };
}

describe("fastify's own request ids", () => {
  it('with useFastifyRequestId, requestContext holds request.id, fastify logs it, and the response echoes it', async () => {
    const lines: Array<{ reqId?: string; msg?: string }> = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(JSON.parse(chunk.toString()) as { reqId?: string; msg?: string });
        callback();
      },
    });
    let counter = 0;
    const app = fastify({ logger: { stream }, genReqId: () => `fastify-${++counter}` });
    await app.register(fastifyContext, { useFastifyRequestId: true });
    const server = await serve(app);
    try {
      const response = await send(server.port, { path: '/' });
      expect(response.json).toEqual({ fastifyId: 'fastify-1', ambientId: 'fastify-1' });
      expect(response.headers['x-request-id']).toBe('fastify-1');
      expect(lines.find((line) => line.msg === 'inside the handler')?.reqId).toBe('fastify-1');
    } finally {
      await server.close();
    }
  });

  it("is on by default when fastify was given a requestIdHeader, and off (Ambient's rules) otherwise", async () => {
    const withHeader = fastify({ requestIdHeader: 'x-request-id' });
    await withHeader.register(fastifyContext);
    const first = await serve(withHeader);
    try {
      const response = await send(first.port, { path: '/', headers: { 'x-request-id': 'from-client' } });
      expect(response.json).toEqual({ fastifyId: 'from-client', ambientId: 'from-client' });
    } finally {
      await first.close();
    }
    const plain = fastify();
    await plain.register(fastifyContext);
    const second = await serve(plain);
    try {
      const response = await send(second.port, { path: '/', headers: { 'x-request-id': 'bad id' } });
      const body = response.json as { fastifyId: string; ambientId: string };
      expect(body.ambientId).not.toBe('bad id');
      expect(body.ambientId).toBe(response.headers['x-request-id']);
    } finally {
      await second.close();
    }
  });

  it('rejects bad options with a typed error when the plugin is registered', async () => {
    await expect(
      fastify()
        .register(fastifyContext, { useFastifyRequestId: 'yes' as never })
        .ready(),
    ).rejects.toMatchObject({
      code: 'ERR_AMBIENT_FASTIFY_INVALID_OPTION',
    });
    await expect(
      fastify()
        .register(fastifyContext, { requestIdHeader: 42 as never })
        .ready(),
    ).rejects.toMatchObject({
      code: 'ERR_AMBIENT_HTTP_INVALID_OPTION',
    });
  });
});
