// attachValue: the primitive behind OpenTelemetry's ContextManager.attach() (@opentelemetry/api 1.10).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Variable, requestContext } from '@ambient/core';
import { attachValue, captureWith, runInCapturedContext } from '@ambient/core/internal';
import { expectAmbientError } from './helpers/starting-states.js';

const variable = new Variable<string>({ name: 'attached', defaultValue: 'default' });
const other = new Variable<string>({ name: 'other' });

describe('attachValue(variable, value)', () => {
  it('works outside any scope, and dispose leaves no scope behind', () => {
    expect(requestContext.active).toBe(false);
    const token = attachValue(variable, 'a');
    expect(variable.get()).toBe('a');
    token.dispose();
    expect(variable.get()).toBe('default');
    expect(new Variable<string>().run('x', () => 'ran')).toBe('ran');
    expect(attachValue(variable, 'b').dispose()).toBeUndefined();
    expect(requestContext.active).toBe(false);
  });

  it('nests LIFO, and a second dispose does nothing', () => {
    variable.run('outer', () => {
      const first = attachValue(variable, 'first');
      const second = attachValue(variable, 'second');
      expect(variable.get()).toBe('second');
      second.dispose();
      expect(variable.get()).toBe('first');
      second.dispose();
      expect(variable.get()).toBe('first');
      first.dispose();
      expect(variable.get()).toBe('outer');
    });
  });

  it('restores only its own variable when other values changed in between', () => {
    other.run('kept', () => {
      const token = attachValue(variable, 'a');
      other.set('changed after attach');
      token.dispose();
      expect([variable.get(), other.get()]).toEqual(['default', 'changed after attach']);
    });
  });

  it('reaches promises and setImmediate started after it, not a sibling chain started before', async () => {
    const sibling = variable.run('sibling', async () => {
      await nextTurn();
      return variable.get();
    });
    const seen = await variable.run('parent', async () => {
      const token = attachValue(variable, 'attached');
      const later = new Promise<string | undefined>((resolve) => setImmediate(() => resolve(variable.get())));
      const afterAwait = await Promise.resolve().then(() => variable.get());
      token.dispose();
      return [await later, afterAwait, variable.get()];
    });
    expect(seen).toEqual(['attached', 'attached', 'parent']);
    expect(await sibling).toBe('sibling');
  });

  it('is undone by the innermost enclosing run(), like set()', () => {
    variable.run('outer', () => {
      new Variable<number>().run(1, () => attachValue(variable, 'inside'));
      expect(variable.get()).toBe('outer');
    });
  });

  it('holds undefined on purpose, hiding an outer value and the default', () => {
    variable.run('outer', () => {
      const token = attachValue(variable, undefined as unknown as string);
      expect(variable.get()).toBeUndefined();
      token.dispose();
      expect(variable.get()).toBe('outer');
    });
  });

  it('refuses anything but a Variable, with a coded TypeError', () => {
    expectAmbientError(() => attachValue({} as Variable<string>, 'x'), 'ERR_AMBIENT_INVALID_RECEIVER');
  });
});

describe('captureWith(variable, value)', () => {
  it('captures the current values with the variable holding value, entering nothing now', () => {
    const captured = other.run('here', () => {
      const made = captureWith(variable, 'captured');
      expect([variable.get(), other.get()]).toEqual(['default', 'here']);
      return made;
    });
    const read = () => [variable.get(), other.get()];
    expect(runInCapturedContext(captured, read, undefined, [])).toEqual(['captured', 'here']);
    expect(runInCapturedContext(captureWith(variable, undefined as unknown as string), read, undefined, [])).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('refuses anything but a Variable, with a coded TypeError', () => {
    expectAmbientError(() => captureWith({} as Variable<string>, 'x'), 'ERR_AMBIENT_INVALID_RECEIVER');
  });
});
