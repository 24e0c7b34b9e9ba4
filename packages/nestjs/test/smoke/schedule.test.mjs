// @nestjs/schedule under AmbientModule (Nest 12, in-process): each tick of an @Interval, a @Timeout and a @Cron
// runs as one run of its schedule, with an id of its own; and a CronJob registered while a request is open ticks
// outside that request, and does not keep it alive (FinalizationRegistry, --expose-gc).
import assert from 'node:assert/strict';
import { register } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { requestContext } from '@ambient/core';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
process.env.SWC_NODE_PROJECT = join(packageDir, 'tsconfig.json');
register('@swc-node/register/esm', import.meta.url);
const { startReports, ticks } = await import(
  pathToFileURL(join(packageDir, 'test', 'fixtures', 'schedule-app.ts')).href
);

async function until(done, ms) {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await sleep(20);
  return done();
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('@Interval, @Timeout and @Cron ticks run each in a scope of its own, and a CronJob added in a request ticks outside it', async () => {
  const { app, reports } = await startReports();
  let collected = false;
  const requests = new FinalizationRegistry(() => (collected = true));
  try {
    (() => {
      // A value the request's scope holds (run() copies the values object itself, so watch one of its values).
      const user = { name: 'the user of the scheduling request' };
      requests.register(user, 'the request');
      requestContext.run({ requestId: 'req-scheduling', user }, () => reports.scheduleFromARequest('from-a-request'));
    })();
    const seen = (schedule) => ticks.filter((tick) => tick.schedule === schedule);
    // Each wait ends as soon as the ticks are there; a cron ticks once a second.
    await until(
      () => seen('every-20ms').length >= 3 && seen('once').length === 1 && seen('every-second').length >= 1,
      10_000,
    );
    await until(() => seen('from-a-request').length >= 2, 10_000);
    for (const schedule of ['every-20ms', 'once', 'every-second']) {
      assert.ok(seen(schedule).length > 0, `${schedule} ticked`);
      for (const tick of seen(schedule)) {
        assert.match(tick.requestId ?? '', uuid, `${schedule}: an id of its own`);
        assert.deepEqual(tick.job, { name: schedule, system: 'schedule' });
      }
    }
    const intervalIds = new Set(seen('every-20ms').map((tick) => tick.requestId));
    assert.equal(intervalIds.size, seen('every-20ms').length, 'each tick its own id');
    assert.ok(seen('from-a-request').length >= 2, 'the CronJob added in a request ticked twice');
    for (const tick of seen('from-a-request')) {
      assert.notEqual(tick.requestId, 'req-scheduling', 'a tick ran in the request that scheduled it');
      assert.match(tick.requestId ?? '', uuid);
    }
    for (let attempt = 0; attempt < 20 && !collected; attempt++) {
      globalThis.gc();
      await sleep(50);
    }
    assert.ok(collected, "the scheduling request's values are still alive while its CronJob is armed");
  } finally {
    await app.close();
  }
});
