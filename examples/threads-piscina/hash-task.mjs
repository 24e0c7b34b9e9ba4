// The worker thread's side: each task hashes a password (CPU-heavy, so it must not run on the event loop) in a
// run of the request that sent it. A task given `fail` throws, as a task with a bug does.
import { pbkdf2Sync } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import { taskHandler } from '@ambient/threads-context';
import { logger } from './logger.mjs';

export default taskHandler(
  async ({ user, password, fail }) => {
    logger.info({ user, threadId }, 'hashing');
    if (fail) throw new Error(`cannot hash the password of ${user}`);
    const hash = pbkdf2Sync(password, user, 20_000, 32, 'sha256').toString('hex');
    logger.info({ user, threadId }, 'hashed');
    return hash;
  },
  { name: 'hash-password' },
);
