import { expect, test } from 'tstyche';
import { guardDrivers, queryLogListener, type DriverGuard, type QueryEvent } from '@ambient/drivers-context';

test('guardDrivers takes driver modules and returns a disposable guard', () => {
  expect(guardDrivers({ pg: { Pool: class {}, Client: class {} }, detachConnections: false })).type.toBe<DriverGuard>();
  expect(guardDrivers).type.not.toBeCallableWith({ channels: ['pg'] });
  expect(guardDrivers).type.not.toBeCallableWith({ detachConnections: 'yes' });
});

test('onQuery gets a QueryEvent; queryLogListener takes a pino-like logger', () => {
  guardDrivers({
    onQuery: (event) => {
      expect(event).type.toBe<QueryEvent>();
      expect(event.system).type.toBe<'mysql' | 'postgresql' | 'redis'>();
    },
  });
  expect(queryLogListener({ info() {}, warn() {} })).type.toBe<(event: QueryEvent) => void>();
  expect(queryLogListener).type.not.toBeCallableWith(console.log);
});
