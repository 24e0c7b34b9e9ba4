// One GraphQL scenario run through every host: two concurrent requests, each with the DataLoader its context
// function made (or one loader shared by both), resolvers that log after awaits and load through the loader.
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import DataLoader from 'dataloader';
import pino from 'pino';
import { requestContext } from '@ambient/core';
import { enableDiagnostics, type DiagnosticReport } from '@ambient/diagnostics';
import { correlationMixin } from '@ambient/pino-context';

export const typeDefs = /* GraphQL */ `
  type User {
    id: ID!
    name: String!
    friend: User
  }
  type Query {
    user(id: ID!, secret: String): User
  }
  type Mutation {
    rename(id: ID!, name: String!): User
  }
`;

/** The query each request sends; `secret` is a variable that must never reach a log line. */
export const query = /* GraphQL */ `
  query GetUser($id: ID!, $secret: String) {
    user(id: $id, secret: $secret) {
      id
      name
      friend {
        id
        name
      }
    }
  }
  mutation Rename($id: ID!, $name: String!) {
    rename(id: $id, name: $name) {
      id
    }
  }
`;

export interface LogLine {
  readonly [field: string]: unknown;
}

/** A real stream for pino to write to, and the lines it wrote, parsed back, with their raw text. */
export function logSink(): { stream: Writable; lines: LogLine[]; raw: string[] } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      }
      callback();
    },
  });
  return { stream, lines, raw };
}

export interface Context {
  readonly users: DataLoader<string, { id: string; name: string; friendId: string }>;
}

/**
 * Resolves when `count` callers have arrived: their loads then fall in one tick, as concurrent loads do. Made
 * outside any request; it opens after five seconds all the same, so a request that never arrives fails the
 * assertions rather than the test's timeout.
 */
function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  setTimeout(open, 5000).unref();
  return () => {
    if (++arrived === count) open();
    return opened;
  };
}

/** What a host needs to run the scenario, and what the scenario reads back. */
export function scenario(options: { shared: boolean }) {
  const { stream, lines, raw } = logSink();
  const reports: DiagnosticReport[] = [];
  const diagnostics = enableDiagnostics({ warnings: false, onReport: (r) => reports.push(r), dataLoader: DataLoader });
  const logger = pino({ mixin: correlationMixin(), base: undefined, timestamp: false }, stream);
  const arrive = barrier(2);
  const makeLoader = (): Context['users'] =>
    new DataLoader(async (ids: readonly string[]) => {
      logger.info({ at: 'batch', ids }, 'batch');
      await sleep(Math.random() * 5);
      return ids.map((id) => ({ id, name: `name of ${id}`, friendId: `${id}-friend` }));
    });
  const sharedDataLoader = options.shared ? makeLoader() : undefined;
  /** The host's context function: a loader per request, or the one shared. */
  const context = (): Context => ({ users: sharedDataLoader ?? makeLoader() });
  const resolvers = {
    Query: {
      async user(_: unknown, args: { id: string }, { users }: Context) {
        logger.info({ at: 'user', id: args.id }, 'resolving user');
        await sleep(Math.random() * 5);
        await arrive();
        const user = await users.load(args.id);
        logger.info({ at: 'user loaded', id: args.id, seen: requestContext.get('requestId') }, 'user loaded');
        return user;
      },
    },
    Mutation: {
      rename(_: unknown, args: { id: string; name: string }) {
        logger.info({ at: 'rename' }, 'renaming');
        return { id: args.id, name: args.name, friendId: 'none' };
      },
    },
    User: {
      async friend(parent: { friendId: string }, _: unknown, { users }: Context) {
        await sleep(Math.random() * 5);
        logger.info({ at: 'friend', id: parent.friendId }, 'resolving friend');
        return users.load(parent.friendId);
      },
    },
  };
  return {
    context,
    resolvers,
    lines,
    raw,
    reports: () => reports.filter((report) => report.kind !== 'capabilities'),
    disable: () => diagnostics.disable(),
  };
}

/** POSTs a GraphQL request with `x-request-id` and returns the parsed response. */
export async function post(
  url: string,
  requestId: string,
  body: object,
): Promise<{ data?: unknown; errors?: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  try {
    return JSON.parse(text) as { data?: unknown; errors?: unknown };
  } catch {
    throw new Error(text);
  }
}

/** A batch of two operations in one HTTP request: the named mutation (a secret variable), then an anonymous one. */
export const renameBatch = [
  { query, operationName: 'Rename', variables: { id: 'user-1', name: 'hunter2-name' } },
  { query: 'mutation { rename(id: "user-2", name: "two") { id } }' },
];

/** The body of request `n`: the named query, with a secret variable. */
export const getUser = (n: number) => ({
  query,
  operationName: 'GetUser',
  variables: { id: `user-${n}`, secret: `hunter2-${n}` },
});

/** Every line a resolver (or a loader's batch) wrote, grouped by the request id of the line. */
export const resolverLines = (lines: readonly LogLine[]) =>
  lines.filter((line) => ['user', 'user loaded', 'friend', 'batch'].includes(String(line['at'])));
