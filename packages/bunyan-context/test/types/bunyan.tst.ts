import bunyan from 'bunyan';
import { expect, test } from 'tstyche';
import { correlationStream } from '@ambient/bunyan-context';

test("correlationStream() is an entry of bunyan's streams", () => {
  expect(bunyan.createLogger).type.toBeCallableWith({
    name: 'api',
    streams: [correlationStream({ stream: process.stdout, level: 'info' })],
  });
  expect(bunyan.createLogger({ name: 'api' }).addStream).type.toBeCallableWith(
    correlationStream({ stream: process.stdout, type: 'raw' }),
  );
  expect(correlationStream).type.toBeCallableWith({ stream: process.stdout }, { fields: { requestId: 'req_id' } });
  expect(correlationStream).type.not.toBeCallableWith({ stream: process.stdout, type: 'file' });
  expect(correlationStream).type.not.toBeCallableWith({ stream: process.stdout, level: 'loud' });
  expect(correlationStream).type.not.toBeCallableWith({ path: '/var/log/app.log' });
});
