import type { OnModuleInit } from '@nestjs/common';
import type { DiscoveryService } from '@nestjs/core';
import { runInRoot } from '@ambient/core';
import { scheduled } from '@ambient/correlation';

type Tick = (...args: unknown[]) => unknown;
interface Scheduled {
  target: Tick;
  ref?: unknown;
}
/** @nestjs/schedule's SchedulerOrchestrator, as far as this reads it: what its decorators registered, by name. */
interface Orchestrator {
  cronJobs: Record<string, Scheduled>;
  intervals: Record<string, Scheduled>;
  timeouts: Record<string, Scheduled>;
  addCron: (this: Orchestrator, target: Tick, options: { name?: string }, ...rest: unknown[]) => unknown;
  addInterval: (this: Orchestrator, target: Tick, timeout: number, name?: string, ...rest: unknown[]) => unknown;
  addTimeout: (this: Orchestrator, target: Tick, timeout: number, name?: string, ...rest: unknown[]) => unknown;
}
/** A cron `CronJob`, as far as this uses it. */
interface CronJobLike {
  readonly isActive: boolean;
  fireOnTick: (this: CronJobLike) => unknown;
  start: (this: CronJobLike) => void;
  stop: (this: CronJobLike) => void;
}
interface Registry {
  addCronJob: (this: Registry, name: string, job: CronJobLike, ...rest: unknown[]) => unknown;
}

const scopedTicks = new WeakSet<Tick>();

/** `target`, each call a run of the schedule `name` (a new request id, `job: { name, system: 'schedule' }`). */
function inScope(name: string, target: Tick): Tick {
  if (typeof target !== 'function' || scopedTicks.has(target)) return target;
  const tick = scheduled(name, target);
  scopedTicks.add(tick);
  return tick;
}

/**
 * @nestjs/schedule's `@Cron`, `@Interval` and `@Timeout` methods, each tick run as one run of its schedule (as
 * `scheduled()` runs it), so that its lines carry an id of their own; and a `CronJob` given to
 * `SchedulerRegistry.addCronJob` inside a request, re-armed outside it: a timer keeps the context it was armed in,
 * and with it the request's values, for as long as it is armed (openclaw/openclaw#126640).
 *
 * @nestjs/schedule exports neither its orchestrator nor a hook for its ticks: both are found among the
 * application's providers by class name, so that an application without @nestjs/schedule loads nothing of it. The
 * decorators' methods are registered when its module initialises and armed when the application boots; they are
 * wrapped here, in between, whichever module initialises first.
 */
export class ScheduleScopes implements OnModuleInit {
  readonly #discovery: DiscoveryService;

  constructor(discovery: DiscoveryService) {
    this.#discovery = discovery;
  }

  onModuleInit(): void {
    const found = new Map<string, object>();
    for (const provider of this.#discovery.getProviders()) {
      const instance: unknown = provider.instance;
      const className = (provider.metatype as { name?: string } | null | undefined)?.name;
      if (typeof instance === 'object' && instance !== null && className !== undefined) found.set(className, instance);
    }
    const orchestrator = found.get('SchedulerOrchestrator') as Orchestrator | undefined;
    const registry = found.get('SchedulerRegistry') as Registry | undefined;
    if (orchestrator !== undefined) scopeOrchestrator(orchestrator);
    if (registry !== undefined) scopeRegistry(registry, orchestrator);
  }
}

function scopeOrchestrator(orchestrator: Orchestrator): void {
  for (const records of [orchestrator.cronJobs, orchestrator.intervals, orchestrator.timeouts]) {
    for (const [name, record] of Object.entries(records ?? {})) record.target = inScope(name, record.target);
  }
  const { addCron, addInterval, addTimeout } = orchestrator;
  orchestrator.addCron = function (target, options, ...rest) {
    return addCron.call(this, inScope(options?.name ?? 'cron', target), options, ...rest);
  };
  orchestrator.addInterval = function (target, timeout, name, ...rest) {
    return addInterval.call(this, inScope(name ?? 'interval', target), timeout, name, ...rest);
  };
  orchestrator.addTimeout = function (target, timeout, name, ...rest) {
    return addTimeout.call(this, inScope(name ?? 'timeout', target), timeout, name, ...rest);
  };
}

function scopeRegistry(registry: Registry, orchestrator: Orchestrator | undefined): void {
  const { addCronJob } = registry;
  // The orchestrator's own jobs: their ticks run in a scope already, and they are armed as the application boots.
  const orchestrated = (job: CronJobLike) =>
    Object.values(orchestrator?.cronJobs ?? {}).some((record) => record.ref === job);
  registry.addCronJob = function (name, job, ...rest) {
    if (typeof job?.fireOnTick === 'function' && !orchestrated(job)) {
      const fireOnTick = job.fireOnTick;
      job.fireOnTick = inScope(name, fireOnTick.bind(job));
      // Armed from the root: now if it runs, and whenever it is started (the usual addCronJob, then start()).
      const start = job.start;
      job.start = () => runInRoot(() => start.call(job));
      if (job.isActive) {
        job.stop();
        job.start();
      }
    }
    return addCronJob.call(this, name, job, ...rest);
  };
}
