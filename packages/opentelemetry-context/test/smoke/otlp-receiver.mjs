// A stand-in for an OpenTelemetry Collector: an OTLP/HTTP JSON receiver (127.0.0.1 unless told) that keeps every
// log record and span it is sent, flattened (attributes as a plain object), for tests to read back. The test
// across hosts runs it as a process of its own (test/across-hosts/hosts/receiver.mjs).
import http from 'node:http';

/** An OTLP AnyValue as the plain value it encodes. */
function plain(value = {}) {
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('arrayValue' in value) return (value.arrayValue.values ?? []).map(plain);
  if ('kvlistValue' in value) return attributesOf(value.kvlistValue.values);
  return undefined;
}

const attributesOf = (list = []) => Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));

/**
 * Starts the receiver on `host`:`port` (default 127.0.0.1, a free port); `records` and `spans` fill as exporters
 * send, and `onReceived(kind, item)`, where given, sees each one ('record' or 'span') as it arrives.
 */
export async function startOtlpReceiver({ host = '127.0.0.1', port = 0, onReceived = () => {} } = {}) {
  const records = [];
  const spans = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const payload = JSON.parse(body);
      for (const { resource, scopeLogs = [] } of payload.resourceLogs ?? []) {
        const { 'service.name': service, 'process.pid': pid } = attributesOf(resource?.attributes);
        for (const { scope, logRecords = [] } of scopeLogs) {
          for (const record of logRecords) {
            const received = {
              body: plain(record.body),
              attributes: attributesOf(record.attributes),
              traceId: record.traceId || undefined,
              spanId: record.spanId || undefined,
              time: record.timeUnixNano,
              scope: scope?.name,
              service,
              pid,
            };
            records.push(received);
            onReceived('record', received);
          }
        }
      }
      for (const { resource, scopeSpans = [] } of payload.resourceSpans ?? []) {
        const { 'service.name': service, 'process.pid': pid } = attributesOf(resource?.attributes);
        for (const { spans: sent = [] } of scopeSpans) {
          for (const span of sent) {
            const received = { ...span, attributes: attributesOf(span.attributes), service, pid };
            spans.push(received);
            onReceived('span', received);
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  return {
    url: `http://${host}:${server.address().port}`,
    records,
    spans,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
