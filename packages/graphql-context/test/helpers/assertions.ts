import type { DiagnosticReport } from '@ambient/diagnostics';
import { getUser, post, resolverLines, type LogLine } from './scenario.js';

const getUserOperation = { name: 'GetUser', type: 'query' };

/** The request a line belongs to, read off the user id it names (`user-2`, `user-2-friend`, a batch of them). */
const requestOf = (line: LogLine, prefix: string): string[] => {
  const ids = Array.isArray(line['ids']) ? (line['ids'] as string[]) : [String(line['id'])];
  return [...new Set(ids.map((id) => `${prefix}-${/^user-(\d+)/.exec(id)?.[1] ?? '?'}`))];
};

/** Sends two concurrent GetUser requests, `${prefix}-1` and `${prefix}-2`, and checks the answers. */
export async function twoConcurrentRequests(url: string, prefix: string): Promise<void> {
  const answers = await Promise.all([1, 2].map((n) => post(url, `${prefix}-${n}`, getUser(n))));
  expect(answers).toEqual(
    [1, 2].map((n) => ({
      data: {
        user: {
          id: `user-${n}`,
          name: `name of user-${n}`,
          friend: { id: `user-${n}-friend`, name: `name of user-${n}-friend` },
        },
      },
    })),
  );
}

/**
 * Every resolver line and every batch line of each request carries that request's id and the operation, five
 * lines a request; no line holds a variable's value; diagnostics reported nothing.
 */
export function expectOwnRequestAndOperation(
  lines: readonly LogLine[],
  raw: readonly string[],
  prefix: string,
  reports: readonly DiagnosticReport[],
): void {
  const seen = resolverLines(lines);
  expect(seen).toHaveLength(10);
  for (const line of seen) {
    expect({ at: line['at'], requestId: line['requestId'], operation: line['operation'] }).toEqual({
      at: line['at'],
      requestId: requestOf(line, prefix)[0],
      operation: getUserOperation,
    });
    expect(requestOf(line, prefix)).toHaveLength(1);
    if (line['at'] === 'user loaded') expect(line['seen']).toBe(line['requestId']);
  }
  expect(raw.filter((line) => line.includes('hunter2'))).toEqual([]);
  expect(reports).toEqual([]);
}

/** A loader shared by both requests: one batch held both requests' keys, and diagnostics reported it once. */
export function expectSharedLoaderReported(
  lines: readonly LogLine[],
  prefix: string,
  reports: readonly DiagnosticReport[],
): void {
  const crossed = resolverLines(lines).filter((line) => line['at'] === 'batch' && requestOf(line, prefix).length > 1);
  expect(crossed.length).toBeGreaterThan(0);
  expect(reports).toEqual([
    expect.objectContaining({
      kind: 'sharedDataLoader',
      site: expect.stringMatching(/helpers\/scenario\.ts:\d+:\d+$/),
      ownerRequestId: expect.stringMatching(new RegExp(`^${prefix}-[12]$`)),
      foundRequestId: expect.stringMatching(new RegExp(`^${prefix}-[12]$`)),
    }),
  ]);
  const [report] = reports as Array<Extract<DiagnosticReport, { kind: 'sharedDataLoader' }>>;
  expect(report?.ownerRequestId).not.toBe(report?.foundRequestId);
}
