import { expect, test } from 'tstyche';
import {
  contextCarrier,
  parseTraceParent,
  readCarrier,
  runJob,
  scheduled,
  type CarrierFields,
  type ContextCarrier,
  type CorrelationErrorCode,
  type JobRun,
  type TraceParent,
} from '@ambient/correlation';

test("runJob returns fn's result and takes a typed job", () => {
  expect(runJob({ name: 'send' }, () => 42)).type.toBe<number>();
  expect(runJob({ name: 'send', carrier: contextCarrier() }, async () => 'sent')).type.toBe<Promise<string>>();
  expect(runJob).type.toBeCallableWith({ name: 'send', carrier: readCarrier({}) } satisfies JobRun, () => 1);
  expect(runJob).type.not.toBeCallableWith({ id: '1' }, () => 1);
  expect(runJob).type.not.toBeCallableWith({ name: 'send', attempt: '2' }, () => 1);
});

test('the carrier is a flat map of strings, read back into checked fields', () => {
  expect(contextCarrier()).type.toBe<ContextCarrier>();
  expect<ContextCarrier>().type.toBe<Record<string, string>>();
  expect(readCarrier(JSON.parse('{}') as unknown)).type.toBe<CarrierFields>();
  expect(readCarrier({}).traceParent).type.toBe<TraceParent | undefined>();
  expect(parseTraceParent('x')).type.toBe<TraceParent | undefined>();
});

test("scheduled keeps the function's type", () => {
  const tick = scheduled('reindex', (at: Date) => at.getTime());
  expect(tick).type.toBe<(at: Date) => number>();
  expect(scheduled).type.not.toBeCallableWith(42, () => 1);
});

test('its errors have codes of their own', () => {
  expect<CorrelationErrorCode>().type.toBe<
    'ERR_AMBIENT_CORRELATION_INVALID_ARGUMENT' | 'ERR_AMBIENT_CORRELATION_INVALID_OPTION'
  >();
});
