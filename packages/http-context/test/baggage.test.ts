import http from 'node:http';
import { send } from '@ambient/conformance';
import { httpContext, requestContext, type HttpContextOptions } from '@ambient/http-context';
import { close, listen } from './helpers/server.js';

/**
 * Real services on 127.0.0.1: A handles a request and calls B with fetch, either directly or through a relay that
 * forwards only `baggage` (a hop that drops headers it does not know). B's own scope shows what reached it.
 */
type Seen = { requestId?: string; correlationId?: string; causationId?: string; baggage?: string };

async function serviceB(options: HttpContextOptions): Promise<{ server: http.Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer(
    httpContext((req, res) => {
      const { requestId, correlationId, causationId } = requestContext.snapshot() ?? {};
      seen.push({ requestId, correlationId, causationId, baggage: req.headers.baggage as string | undefined });
      res.end(JSON.stringify(res.getHeaders()));
    }, options),
  );
  return { server, port: await listen(server), seen };
}

/** Forwards a request to `port` with its `baggage` header alone. */
async function relayTo(port: number): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer((req, res) => {
    const headers = req.headers.baggage === undefined ? {} : { baggage: req.headers.baggage };
    http.get({ host: '127.0.0.1', port, path: req.url, headers }, (response) => response.pipe(res));
  });
  return { server, port: await listen(server) };
}

async function serviceA(baggage: boolean, target: number): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(
    httpContext(
      async (_req, res) => {
        await (await fetch(`http://127.0.0.1:${target}/b`)).text();
        res.end('ok');
      },
      { propagation: { allowedOrigins: [`http://127.0.0.1:${target}`], baggage } },
    ),
  );
  return { server, port: await listen(server) };
}

describe('W3C baggage between two services', () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => close(server)));
  });

  it("carries the chain's ids through a hop that forwards only baggage, when both sides opt in", async () => {
    const b = await serviceB({ baggage: true });
    const relay = await relayTo(b.port);
    const a = await serviceA(true, relay.port);
    servers.push(a.server, relay.server, b.server);
    await send(a.port, { path: '/a', headers: { 'x-request-id': 'req-a', 'x-correlation-id': 'chain-1' } });
    await send(a.port, { path: '/a', headers: { 'x-request-id': 'req-a2' } });
    expect(b.seen.map(({ correlationId, causationId, baggage }) => ({ correlationId, causationId, baggage }))).toEqual([
      { correlationId: 'chain-1', causationId: 'req-a', baggage: 'correlationId=chain-1,causationId=req-a' },
      { correlationId: 'req-a2', causationId: 'req-a2', baggage: 'correlationId=req-a2,causationId=req-a2' },
    ]);
    expect(b.seen[0]!.requestId).not.toBe('req-a');
  });

  it('sends and reads nothing without the options', async () => {
    const quietB = await serviceB({});
    const relayToQuiet = await relayTo(quietB.port);
    const listeningB = await serviceB({ baggage: true });
    const relayToListening = await relayTo(listeningB.port);
    const sendsBaggage = await serviceA(true, relayToQuiet.port);
    const sendsNone = await serviceA(false, relayToListening.port);
    servers.push(quietB.server, relayToQuiet.server, listeningB.server, relayToListening.server);
    servers.push(sendsBaggage.server, sendsNone.server);
    await send(sendsBaggage.port, { path: '/a', headers: { 'x-correlation-id': 'chain-2' } });
    await send(sendsNone.port, { path: '/a', headers: { 'x-correlation-id': 'chain-3' } });
    expect(quietB.seen[0]).toMatchObject({ correlationId: undefined, causationId: undefined });
    expect(quietB.seen[0]!.baggage).toContain('correlationId=chain-2');
    expect(listeningB.seen[0]).toEqual({
      requestId: expect.any(String) as string,
      correlationId: undefined,
      causationId: undefined,
      baggage: undefined,
    });
  });

  it('keeps a valid x-correlation-id over the baggage member', async () => {
    const b = await serviceB({ baggage: true });
    servers.push(b.server);
    await send(b.port, {
      path: '/',
      headers: { 'x-correlation-id': 'from-header', baggage: 'correlationId=from-baggage,causationId=req-0' },
    });
    expect(b.seen[0]).toMatchObject({ correlationId: 'from-header', causationId: 'req-0' });
  });

  it('ignores hostile baggage as a whole: nothing taken, echoed or kept', async () => {
    const b = await serviceB({ baggage: true });
    servers.push(b.server);
    const hostile = {
      oversized: `correlationId=chain-ok,causationId=req-ok,padding=${'x'.repeat(8192)}`,
      'bad percent-encoding': 'correlationId=chain%E0%A4%A,causationId=req-ok',
      'not key=value': 'correlationId=chain-ok,causationId',
      'a forged id': 'correlationId=%3Cscript%3Ealert(1)%3C%2Fscript%3E',
      'an id over 128 characters': `correlationId=${'a'.repeat(129)}`,
      'a member twice': 'correlationId=chain-a,correlationId=chain-b',
      'more than 64 members': [...Array.from({ length: 64 }, (_, i) => `k${i}=v`), 'correlationId=chain-ok'].join(','),
      'a space in a value': 'correlationId=chain ok',
    };
    const echoed: string[] = [];
    for (const baggage of Object.values(hostile)) {
      const response = await send(b.port, { path: '/', headers: { baggage } });
      echoed.push(JSON.stringify(response.headers), response.text);
    }
    const forged = await send(b.port, {
      path: '/',
      headers: { baggage: 'causationId=%3Cscript%3E,correlationId=chain-ok' },
    });
    echoed.push(JSON.stringify(forged.headers), forged.text);
    expect(b.seen.slice(0, -1).map(({ correlationId, causationId }) => ({ correlationId, causationId }))).toEqual(
      Object.keys(hostile).map(() => ({ correlationId: undefined, causationId: undefined })),
    );
    // A forged member is dropped alone: the other is valid.
    expect(b.seen.at(-1)).toMatchObject({ correlationId: 'chain-ok', causationId: undefined });
    expect(echoed.join('\n')).not.toMatch(/script|chain-a|chain-b|x{100}/);
  });
});
