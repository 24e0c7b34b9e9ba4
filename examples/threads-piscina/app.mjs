// express with expressContext: POST /users/:name hashes the password in piscina's threads (contextTask) and
// answers with the hash; the request's own lines and its task's lines share the request's ids.
import express from 'express';
import { Piscina } from 'piscina';
import { expressContext } from '@ambient/express-context';
import { contextTask } from '@ambient/threads-context';
import { logger } from './logger.mjs';

export function createApp() {
  const pool = new Piscina({ filename: new URL('./hash-task.mjs', import.meta.url).href, maxThreads: 2 });
  const app = express();
  app.use(expressContext());
  app.post('/users/:name', async (req, res) => {
    const user = req.params.name;
    logger.info({ user }, 'signing up');
    try {
      const hash = await pool.run(contextTask({ user, password: `secret of ${user}`, fail: user === 'mallory' }));
      logger.info({ user }, 'signed up');
      res.json({ user, hash: hash.slice(0, 16) });
    } catch (error) {
      // The task's failure reaches the request that sent it, in its scope: this line carries its ids too.
      logger.error({ user, error: error.message }, 'sign-up failed');
      res.status(500).json({ user, error: 'sign-up failed' });
    }
  });
  return { app, close: () => pool.destroy() };
}
