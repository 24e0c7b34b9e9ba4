import { Variable } from '@ambient/core';
import { sharedState } from '@ambient/core/internal';
import type { Context } from '@opentelemetry/api';

/** Where one AmbientContextManager keeps its active Context: a Variable, replaced on disable(). */
export class ManagerSlot {
  variable = new Variable<Context | undefined>({ name: 'opentelemetry.context' });

  constructor() {
    registry.add(new WeakRef(this));
  }
}

/*
 * Every manager's slot, across every copy of this package (ESM and CJS builds, duplicate installs), so that a
 * function one manager binds can leave the others' contexts as the caller has them. Two of OpenTelemetry's own
 * managers never touch each other, each having its own AsyncLocalStorage; two AmbientContextManagers share
 * Ambient's one frame, and a bound function that restored a whole captured frame would also restore the other
 * manager's context from bind time: `other.bind(ctx2, manager.bind(ctx1, fn))` would run fn without ctx2.
 * Weak, since a manager can be dropped without disable().
 */
const registry = sharedState('@ambient/opentelemetry-context.manager-slots', () => new Set<WeakRef<ManagerSlot>>());

/** The slots of every other live manager, or undefined when `own` is the only one (the common case). */
export function otherManagerSlots(own: ManagerSlot): ManagerSlot[] | undefined {
  if (registry.size === 1) return undefined;
  const others: ManagerSlot[] = [];
  for (const reference of registry) {
    const slot = reference.deref();
    if (slot === undefined) registry.delete(reference);
    else if (slot !== own) others.push(slot);
  }
  return others.length === 0 ? undefined : others;
}
