// A stand-in for an OpenTelemetry Collector: an OTLP/HTTP JSON receiver on 127.0.0.1 that keeps every log record
// and span it is sent, flattened (attributes as a plain object), for tests to read back.
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

/** Starts the receiver; `records` and `spans` fill as exporters send. */
export async function startOtlpReceiver() {
  const records = [];
  const spans = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const payload = JSON.parse(body);
      for (const { resource, scopeLogs = [] } of payload.resourceLogs ?? []) {
        for (const { scope, logRecords = [] } of scopeLogs) {
          for (const record of logRecords) {
            records.push({
              body: plain(record.body),
              attributes: attributesOf(record.attributes),
              traceId: record.traceId || undefined,
              spanId: record.spanId || undefined,
              scope: scope?.name,
              service: attributesOf(resource?.attributes)['service.name'],
            });
          }
        }
      }
      for (const { scopeSpans = [] } of payload.resourceSpans ?? []) {
        for (const { spans: sent = [] } of scopeSpans) {
          for (const span of sent) spans.push({ ...span, attributes: attributesOf(span.attributes) });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    records,
    spans,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
