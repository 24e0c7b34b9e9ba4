import { httpContext } from '@ambient/http-context';
import { createRequestPolicy } from '@ambient/http-context/internal';

function codeOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  return 'did not throw';
}

describe('options are checked when the server is built', () => {
  const listener = () => undefined;

  it.each([
    ['not an object', 'x-request-id'],
    ['an unknown option (a typo)', { requestIDHeader: 'x-id' }],
    ['a header name with a space', { requestIdHeader: 'x request id' }],
    ['a header name that is a number', { requestIdHeader: 42 }],
    ['requestIdHeader true', { requestIdHeader: true }],
    ['a validator that is not a function', { validateRequestId: /x/ }],
    ['a generator that is not a function', { generateRequestId: 'uuid' }],
    ['an echo header with CR/LF', { echoRequestId: 'x-id\r\nx-evil' }],
    ['traceContext as a string', { traceContext: 'yes' }],
    ['propagation without allowedOrigins', { propagation: {} }],
    ['an allowed origin that is not a URL', { propagation: { allowedOrigins: ['not a url'] } }],
    ['an allowed origin with another scheme', { propagation: { allowedOrigins: ['ftp://127.0.0.1'] } }],
    ['an allowed origin that is a number', { propagation: { allowedOrigins: [8080] } }],
    ['a propagation header that is not a header name', { propagation: { allowedOrigins: [], requestIdHeader: '' } }],
    ['onError that is not a function', { onError: 'log' }],
  ])('rejects %s with ERR_AMBIENT_HTTP_INVALID_OPTION', (_what, options) => {
    expect(codeOf(() => httpContext(listener, options as never))).toBe('ERR_AMBIENT_HTTP_INVALID_OPTION');
  });

  it('rejects a listener that is not a function with ERR_AMBIENT_HTTP_INVALID_ARGUMENT', () => {
    expect(codeOf(() => httpContext('listener' as never))).toBe('ERR_AMBIENT_HTTP_INVALID_ARGUMENT');
  });

  it('resolves defaults, header case and origins once', () => {
    const policy = createRequestPolicy(
      {
        requestIdHeader: 'X-Correlation-Id',
        propagation: { allowedOrigins: ['http://127.0.0.1:8080/path', new URL('https://api.example:443')] },
      },
      'test',
    );
    expect(policy.incomingHeader).toBe('x-correlation-id');
    expect(policy.echoHeader).toBe('x-correlation-id');
    expect(policy.traceContext).toBe(true);
    expect(policy.propagation?.requestIdHeader).toBe('x-correlation-id');
    expect(policy.propagation?.isAllowed('http://127.0.0.1:8080')).toBe(true);
    expect(policy.propagation?.isAllowed('https://api.example')).toBe(true);
    expect(policy.propagation?.isAllowed('http://127.0.0.1:8081')).toBe(false);
    expect(createRequestPolicy({ requestIdHeader: false }, 'test')).toMatchObject({
      incomingHeader: undefined,
      echoHeader: 'x-request-id',
    });
    expect(createRequestPolicy({ echoRequestId: false }, 'test').echoHeader).toBeUndefined();
  });
});
