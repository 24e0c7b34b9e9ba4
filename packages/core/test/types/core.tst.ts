import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { expect, test } from 'tstyche';
import {
  AmbientError,
  bindEmitter,
  createContext,
  requestContext,
  Snapshot,
  Variable,
  type AmbientErrorCode,
  type CoreErrorCode,
  type Context,
  type RequestStore,
} from '@ambient/core';
import { runInCapturedContext, captureContext, captureWith, type CapturedContext } from '@ambient/core/internal';

declare module '@ambient/core' {
  interface RequestStore {
    userId?: string;
  }
}

test('Variable is typed by its value', () => {
  const variable = new Variable<string>({ name: 'user', defaultValue: 'anonymous' });
  expect(variable.get()).type.toBe<string | undefined>();
  expect(variable.name).type.toBe<string>();
  expect(variable.run).type.toBeCallableWith('ada', () => 1);
  expect(variable.run).type.not.toBeCallableWith(42, () => 1);
  expect(variable.set).type.not.toBeCallableWith(42);
  expect(Variable).type.not.toBeConstructableWith({ defaultValue: 42, name: 5 });
  expect(new Variable({ defaultValue: 1 }).get()).type.toBe<number | undefined>();
});

test('run passes arguments through with their types and returns the callback result', () => {
  const variable = new Variable<string>();
  expect(variable.run('v', (a: number, b: string) => ({ a, b }), 1, 'x')).type.toBe<{ a: number; b: string }>();
  expect(variable.run).type.not.toBeCallableWith('v', (a: number) => a, 'not a number');
  expect(variable.run).type.not.toBeCallableWith('v', (a: number) => a);
  expect(variable.run('v', async () => 1)).type.toBe<Promise<number>>();
  expect(new Snapshot().run((n: number) => n * 2, 21)).type.toBe<number>();
  expect(new Snapshot().run).type.not.toBeCallableWith((n: number) => n, 'x');
});

test('Variable#wrap keeps the function type and takes a value of the variable', () => {
  const variable = new Variable<string>();
  expect(variable.wrap('v', (id: string, count: number): boolean => id.length === count)).type.toBe<
    (id: string, count: number) => boolean
  >();
  expect(variable.wrap).type.not.toBeCallableWith(42, () => 1);
  expect(variable.wrap).type.not.toBeCallableWith('v', 'not a function');
});

test('Snapshot.wrap keeps the function type', () => {
  const wrapped = Snapshot.wrap((id: string, count: number): boolean => id.length === count);
  expect(wrapped).type.toBe<(id: string, count: number) => boolean>();
  expect(Snapshot.wrap).type.not.toBeCallableWith('not a function');
});

interface JobStore {
  jobId: string;
  attempt: number;
  tags?: readonly string[];
}

test('a Context only accepts its own keys, with their value types', () => {
  const jobs = createContext<JobStore>({ name: 'jobs' });
  expect(jobs).type.toBe<Context<JobStore>>();
  expect(jobs.get('jobId')).type.toBe<string | undefined>();
  expect(jobs.require('attempt')).type.toBe<number>();
  expect(jobs.snapshot()).type.toBe<Readonly<Partial<JobStore>> | undefined>();
  expect(jobs.get).type.not.toBeCallableWith('jobID');
  expect(jobs.set).type.toBeCallableWith('attempt', 2);
  expect(jobs.set).type.not.toBeCallableWith('attempt', '2');
  expect(jobs.set).type.not.toBeCallableWith('unknown', 1);
  expect(jobs.has).type.not.toBeCallableWith('unknown');
  expect(jobs.run).type.toBeCallableWith({ jobId: 'j1' }, () => undefined);
  expect(jobs.run).type.not.toBeCallableWith({ jobId: 1 }, () => undefined);
  expect(jobs.run).type.not.toBeCallableWith({ unknown: 1 }, () => undefined);
  expect(jobs.active).type.toBe<boolean>();
  expect(createContext).type.not.toBeCallableWith({ name: 1 });
});

test('require() is typed without undefined, as it throws where there is no value', () => {
  const jobs = createContext<JobStore>({ name: 'jobs' });
  expect(jobs.require('tags')).type.toBe<readonly string[]>();
  expect(jobs.get('tags')).type.toBe<readonly string[] | undefined>();
  expect(createContext<{ tags?: string[] }>().require('tags')).type.toBe<string[]>();
  expect(requestContext.require('traceId')).type.toBe<string>();
  expect(requestContext.require('userId')).type.toBe<string>();
  // null is a value: require() returns it, and says so.
  expect(createContext<{ parent: string | null }>().require('parent')).type.toBe<string | null>();
});

test('requestContext is augmentable through RequestStore', () => {
  expect(requestContext).type.toBe<Context<RequestStore>>();
  expect(requestContext.require('requestId')).type.toBe<string>();
  expect(requestContext.get('traceId')).type.toBe<string | undefined>();
  expect(requestContext.get('userId')).type.toBe<string | undefined>();
  expect(requestContext.set).type.not.toBeCallableWith('userId', 42);
  expect(requestContext.get).type.not.toBeCallableWith('sessionId');
});

test('bindEmitter returns the emitter type it was given', () => {
  expect(bindEmitter(new Readable())).type.toBe<Readable>();
  expect(bindEmitter(new EventEmitter())).type.toBe<EventEmitter>();
  expect(bindEmitter).type.not.toBeCallableWith({ on() {} });
});

test('after instanceof, error.code is the union of registered codes, so a misspelled code does not compile', () => {
  const caught: unknown = new Error('x');
  if (caught instanceof AmbientError) {
    expect(caught.code).type.toBe<AmbientErrorCode>();
    expect(caught.code).type.toBeAssignableTo<string>();
    expect<AmbientErrorCode>().type.toBeAssignableFrom<'ERR_AMBIENT_NO_SCOPE' | 'ERR_AMBIENT_INVALID_OPTION'>();
    expect<AmbientErrorCode>().type.not.toBeAssignableFrom<'ERR_AMBIENT_NO_SCOP'>();
    // @ts-expect-error have no overlap
    expect(caught.code === 'ERR_AMBIENT_NO_SCOP').type.toBe<boolean>();
  }
  expect<CoreErrorCode>().type.toBe<
    | 'ERR_AMBIENT_NO_SCOPE'
    | 'ERR_AMBIENT_MISSING_VALUE'
    | 'ERR_AMBIENT_INVALID_ARGUMENT'
    | 'ERR_AMBIENT_INVALID_OPTION'
    | 'ERR_AMBIENT_SET_UNSUPPORTED'
    | 'ERR_AMBIENT_INVALID_RECEIVER'
  >();
});

test("AmbientError's code is core's closed union unless a package names its own", () => {
  const thrown: AmbientError = new AmbientError('ERR_AMBIENT_NO_SCOPE', 'm');
  expect(thrown.code).type.toBe<AmbientErrorCode>();
  expect(new AmbientError('ERR_SOMETHING_ELSE', 'm')).type.not.toBeAssignableTo<AmbientError>();
  expect(new AmbientError<'ERR_PACKAGE_CODE'>('ERR_PACKAGE_CODE', 'm').code).type.toBe<'ERR_PACKAGE_CODE'>();
  expect(AmbientError<'ERR_PACKAGE_CODE'>).type.not.toBeConstructableWith('ERR_AMBIENT_NO_SCOPE', 'm');
});

test('runInCapturedContext checks the this and the arguments against the function', () => {
  const captured = captureContext();
  const double = (n: number) => n * 2;
  expect(runInCapturedContext(captured, double, undefined, [2])).type.toBe<number>();
  expect(runInCapturedContext).type.not.toBeCallableWith(captured, double, undefined, ['x']);
  function named(this: { name: string }) {
    return this.name;
  }
  expect(runInCapturedContext).type.toBeCallableWith(captured, named, { name: 'a' }, []);
  expect(runInCapturedContext).type.not.toBeCallableWith(captured, named, { other: 1 }, []);
  expect(captureWith(new Variable<string>(), 'x')).type.toBe<CapturedContext>();
  expect(captureWith).type.not.toBeCallableWith(new Variable<string>(), 42);
});
