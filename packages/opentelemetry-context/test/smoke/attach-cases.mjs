// What ContextManager.attach() (@opentelemetry/api 1.10, experimental) promises, as cases any manager can be
// run through: sdk-lines.test.mjs runs them on AmbientContextManager and, as a control for the cases
// themselves, on OpenTelemetry's own AsyncLocalStorageContextManager 3.x where Node runs it.
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * `api` is the @opentelemetry/api the contexts come from. "No context" is checked as "no value for the key",
 * not as identity with `api.ROOT_CONTEXT`: under the 3.x SDK here, AmbientContextManager's own api copy (the
 * workspace's 1.9) has a ROOT_CONTEXT of its own, where an application's install has one api (a peer).
 */
export function attachCases(api) {
  const key = api.createContextKey('attach');
  const ctx = (value) => api.ROOT_CONTEXT.setValue(key, value);
  const value = (manager) => manager.active().getValue(key);

  return {
    'dispose restores the previous context, LIFO; a second dispose does nothing'(manager) {
      const first = manager.attach(ctx(1));
      const second = manager.attach(ctx(2));
      assert.equal(value(manager), 2);
      second.dispose();
      assert.equal(value(manager), 1);
      second.dispose();
      assert.equal(value(manager), 1);
      first.dispose();
      assert.equal(value(manager), undefined);
    },

    async 'promises and setImmediate started after attach see it'(manager) {
      await manager.with(ctx('outer'), async () => {
        const token = manager.attach(ctx('attached'));
        const [later, chained] = await Promise.all([
          new Promise((resolve) => setImmediate(() => resolve(value(manager)))),
          Promise.resolve().then(() => value(manager)),
        ]);
        token.dispose();
        assert.deepEqual([later, chained, value(manager)], ['attached', 'attached', 'outer']);
      });
    },

    async 'a concurrent sibling chain never sees it'(manager) {
      const sibling = manager.with(ctx('sibling'), async () => {
        await nextTurn();
        await nextTurn();
        return value(manager);
      });
      const attaching = manager.with(ctx('attaching'), async () => {
        await nextTurn();
        const token = manager.attach(ctx('attached'));
        await nextTurn();
        const seen = value(manager);
        token.dispose();
        return seen;
      });
      assert.deepEqual(await Promise.all([sibling, attaching]), ['sibling', 'attached']);
    },

    'with() inside attach restores the attached context; with() ends what it encloses'(manager) {
      const token = manager.attach(ctx('attached'));
      manager.with(ctx('inner'), () => assert.equal(value(manager), 'inner'));
      assert.equal(value(manager), 'attached');
      manager.with(ctx('enclosing'), () => manager.attach(ctx('inside with')));
      assert.equal(value(manager), 'attached');
      token.dispose();
      assert.equal(value(manager), undefined);
    },

    'bind() after attach binds its own context; a bound function is not affected by a later attach'(manager) {
      const token = manager.attach(ctx('attached'));
      const active = manager.bind(manager.active(), () => value(manager));
      const fixed = manager.bind(ctx('fixed'), () => value(manager));
      token.dispose();
      const later = manager.attach(ctx('later'));
      assert.deepEqual([active(), fixed()], ['attached', 'fixed']);
      later.dispose();
    },

    'works while disabled'(manager) {
      manager.disable();
      try {
        const token = manager.attach(ctx('disabled'));
        assert.equal(value(manager), 'disabled');
        token.dispose();
        assert.equal(value(manager), undefined);
      } finally {
        manager.enable();
      }
    },
  };
}
