import { ROOT_CONTEXT, defaultTextMapGetter, defaultTextMapSetter, propagation } from '@opentelemetry/api';
import { W3CBaggagePropagator } from '@opentelemetry/core';
import { requestContext } from '@ambient/core';
import { AmbientContextManager, correlationPropagator } from '@ambient/opentelemetry-context';

const propagator = correlationPropagator(new W3CBaggagePropagator());

function injected(context = ROOT_CONTEXT): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagator.inject(context, carrier, defaultTextMapSetter);
  return carrier;
}

describe('correlationPropagator', () => {
  it("adds the scope's chain to the baggage it injects, beside the baggage's own entries", () => {
    const withEntry = propagation.setBaggage(ROOT_CONTEXT, propagation.createBaggage({ tenant: { value: 'acme' } }));
    expect(injected(withEntry)).toEqual({ baggage: 'tenant=acme' });
    expect(requestContext.run({ requestId: 'req-1', correlationId: 'chain-1' }, () => injected(withEntry))).toEqual({
      baggage: 'tenant=acme,correlationId=chain-1,causationId=req-1',
    });
    expect(requestContext.run({ requestId: 'req-2' }, () => injected())).toEqual({
      baggage: 'correlationId=req-2,causationId=req-2',
    });
    expect(propagator.fields()).toEqual(['baggage']);
  });

  it('checks the ids it extracts, and drops from the baggage those that fail', () => {
    const extract = (baggage: string) => propagator.extract(ROOT_CONTEXT, { baggage }, defaultTextMapGetter);
    const valid = extract('tenant=acme,correlationId=chain-1,causationId=req-1');
    expect(valid.getValue(Symbol.for('@ambient/opentelemetry-context carried ids'))).toEqual({
      correlationId: 'chain-1',
      causationId: 'req-1',
    });
    const forged = extract('tenant=acme,correlationId=%3Cscript%3E,causationId=req-1');
    expect(forged.getValue(Symbol.for('@ambient/opentelemetry-context carried ids'))).toEqual({ causationId: 'req-1' });
    expect(
      propagation
        .getBaggage(forged)
        ?.getAllEntries()
        .map(([key]) => key),
    ).toEqual(['tenant', 'causationId']);
    const none = extract('tenant=acme');
    expect(none.getValue(Symbol.for('@ambient/opentelemetry-context carried ids'))).toBeUndefined();
    const empty = propagator.extract(ROOT_CONTEXT, {}, defaultTextMapGetter);
    expect(propagation.getBaggage(empty)).toBeUndefined();
  });

  it('refuses what is not a baggage propagator, with a code', () => {
    for (const given of [undefined, {}, { inject() {} }]) {
      expect(() => correlationPropagator(given as never)).toThrow(
        expect.objectContaining({ code: 'ERR_AMBIENT_OPENTELEMETRY_INVALID_ARGUMENT' }),
      );
    }
  });
});

describe('AmbientContextManager with an extracted context that carries ids', () => {
  const manager = new AmbientContextManager().enable();
  afterAll(() => manager.disable());

  it("opens the message's scope once, at the outermost entry, from the root", async () => {
    const extracted = propagator.extract(
      ROOT_CONTEXT,
      { baggage: 'correlationId=chain-9,causationId=req-9' },
      defaultTextMapGetter,
    );
    const seen = await requestContext.run({ requestId: 'worker-startup' }, () =>
      manager.with(extracted, async () => {
        const outer = requestContext.snapshot();
        await new Promise((resolve) => setTimeout(resolve, 1));
        const nested = manager.with(manager.active().setValue(Symbol('span'), 1), () => requestContext.snapshot());
        return { outer, nested };
      }),
    );
    expect(seen.outer).toEqual({
      requestId: expect.any(String) as string,
      causationId: 'req-9',
      correlationId: 'chain-9',
    });
    expect(seen.outer!.requestId).not.toBe('worker-startup');
    expect(seen.nested).toEqual(seen.outer);
    // A second delivery of the same message is a run of its own.
    const again = manager.with(extracted, () => requestContext.get('requestId'));
    expect(again).not.toBe(seen.outer!.requestId);
  });
});
