// Three jobs run at once. Each opens a requestContext scope and sets a Variable; then, without passing
// anything down, code after awaits, in timers and in EventEmitter listeners reads them back. Every line this
// prints comes from a place that had no argument telling it which job it belongs to.
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { AmbientError, bindEmitter, requestContext, Snapshot, Variable } from '@ambient/core';

const currentUser = new Variable({ name: 'currentUser', defaultValue: 'nobody' });
const seen = [];

function log(where) {
  seen.push({ job: requestContext.get('requestId') ?? '(none)', user: currentUser.get(), where });
}

// Created at startup, outside any job: a plain emitter runs listeners in the context of emit(),
// a bound one in the context where the listener was added.
const plainBus = new EventEmitter();
const boundBus = bindEmitter(new EventEmitter());

async function loadProfile() {
  await sleep(Math.random() * 20);
  log('after an await, two functions down');
}

function handle(jobId, user) {
  return requestContext.run({ requestId: jobId }, async () => {
    currentUser.set(user);
    log('start of the job');
    boundBus.once('tick', () => log('bound EventEmitter listener'));
    await loadProfile();
    await new Promise((resolve) =>
      setTimeout(() => {
        log('setTimeout callback');
        resolve();
      }, Math.random() * 20),
    );
    await new Promise((resolve) =>
      setImmediate(() => {
        log('setImmediate callback');
        resolve();
      }),
    );
    const later = new Snapshot();
    requestContext.set('traceId', `trace-of-${jobId}`);
    await Promise.all([loadProfile(), loadProfile()]);
    later.run(() => log('inside a Snapshot taken earlier'));
    return requestContext.snapshot();
  });
}

plainBus.on('tick', () => log('plain EventEmitter listener, emitted from startup code'));
const results = await Promise.all([handle('job-a', 'ada'), handle('job-b', 'grace'), handle('job-c', 'linus')]);
plainBus.emit('tick');
boundBus.emit('tick');
log('startup code, after every job');

try {
  requestContext.set('requestId', 'outside any scope');
} catch (error) {
  if (!(error instanceof AmbientError)) throw error;
  seen.push({
    job: '(none)',
    user: currentUser.get(),
    where: `requestContext.set outside a scope threw ${error.code}`,
  });
}

const jobs = [...new Set(seen.map((line) => line.job))];
for (const job of jobs) {
  console.log(`\n${job}`);
  for (const line of seen.filter((entry) => entry.job === job))
    console.log(`  user=${line.user.padEnd(6)} ${line.where}`);
}
console.log('\nfinal values of each job:', JSON.stringify(results));

const expectedUser = { 'job-a': 'ada', 'job-b': 'grace', 'job-c': 'linus', '(none)': 'nobody' };
const crossTalk = seen.filter((line) => expectedUser[line.job] !== line.user);
if (crossTalk.length > 0) {
  console.error('\ncross-talk between jobs:', crossTalk);
  process.exit(1);
}
console.log(`\n${seen.length} lines, each job saw only its own user: no cross-talk.`);
