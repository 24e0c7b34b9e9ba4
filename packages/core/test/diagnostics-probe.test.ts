import { readFileSync } from 'node:fs';
import { createContext, requestContext, Variable } from '@ambient/core';
import {
  diagnosticsProbe,
  loadedCopies,
  scopeObject,
  sharedState,
  type DiagnosticsProbe,
} from '@ambient/core/internal';
import { version } from '../src/version.js';

/** A probe that records what it is told. */
function recordingProbe() {
  const missed: string[] = [];
  const probe: DiagnosticsProbe = {
    missedRead: (context) => missed.push(context),
    requestOpened: () => undefined,
    boundary: () => undefined,
  };
  return { probe, missed };
}

/** Where @ambient/diagnostics installs its probe, as it does. */
const installed = sharedState<{ probe?: DiagnosticsProbe }>('@ambient/diagnostics.probe', () => ({}));
const setDiagnosticsProbe = (probe: DiagnosticsProbe | undefined) => (installed.probe = probe);

describe('the diagnostics probe', () => {
  afterEach(() => setDiagnosticsProbe(undefined));

  it('is absent by default, and diagnosticsProbe() reads the one @ambient/diagnostics installed', () => {
    expect(diagnosticsProbe()).toBeUndefined();
    const { probe } = recordingProbe();
    setDiagnosticsProbe(probe);
    expect(diagnosticsProbe()).toBe(probe);
  });

  it('hears of a read that finds no scope, by the context’s name, and of nothing else', () => {
    const { probe, missed } = recordingProbe();
    setDiagnosticsProbe(probe);
    const orders = createContext<{ id: string }>({ name: 'orders' });
    expect(requestContext.get('requestId')).toBeUndefined();
    expect(orders.has('id')).toBe(false);
    requestContext.run({ requestId: 'r1' }, () => {
      expect(requestContext.get('requestId')).toBe('r1');
      expect(requestContext.get('userId' as never)).toBeUndefined();
      expect(requestContext.active).toBe(true);
    });
    // `active`, `snapshot()` and Variables do not count as reads of a context's values.
    expect(requestContext.active).toBe(false);
    expect(requestContext.snapshot()).toBeUndefined();
    expect(new Variable<string>().get()).toBeUndefined();
    expect(missed).toEqual(['requestContext', 'orders']);
  });

  it('scopeObject reads a scope like get, and a miss is not reported', () => {
    const { probe, missed } = recordingProbe();
    setDiagnosticsProbe(probe);
    expect(scopeObject(requestContext)?.requestId).toBeUndefined();
    expect(requestContext.run({ requestId: 'r3' }, () => scopeObject(requestContext)?.requestId)).toBe('r3');
    expect(missed).toEqual([]);
  });

  it('scopeObject is the object a scope’s values live in: the same across set(), none outside a scope', () => {
    expect(scopeObject(requestContext)).toBeUndefined();
    requestContext.run({ requestId: 'r2' }, () => {
      const scope = scopeObject(requestContext);
      requestContext.set('traceId', 'abc');
      expect(scopeObject(requestContext)).toBe(scope);
      expect(scope).toMatchObject({ requestId: 'r2', traceId: 'abc' });
    });
    expect(scopeObject({} as never)).toBeUndefined();
  });
});

describe('copies of @ambient/core', () => {
  it('this one is registered once, with the version its package.json has', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(version).toBe(manifest.version);
    const own = loadedCopies().filter((copy) => copy.version === version);
    expect(own).toHaveLength(1);
    expect(own[0]!.path).toMatch(/packages\/core$/);
  });
});
