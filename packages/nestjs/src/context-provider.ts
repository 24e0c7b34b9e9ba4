import { Inject, type Provider } from '@nestjs/common';
import type { Context } from '@ambient/core';
import { errors } from './errors.js';

const tokens = new WeakMap<Context<object>, symbol>();

/** The provider token of a context made with `createContext`: for `overrideProvider` in a test module. */
export function contextToken<S extends object>(context: Context<S>): symbol {
  if (!isContext(context))
    throw errors.invalidArgument('contextToken(context)', 'a context made with createContext()', context);
  let token = tokens.get(context);
  if (token === undefined) {
    token = Symbol(`ambient context ${context.name}`);
    tokens.set(context, token);
  }
  return token;
}

/** A provider of `context`, for a module's `providers`; a service takes it with `@InjectContext(context)`. */
export function contextProvider<S extends object>(context: Context<S>): Provider<Context<S>> {
  return { provide: contextToken(context), useValue: context };
}

/** Injects a context made with `createContext` that a module provides with `contextProvider(context)`. */
export function InjectContext<S extends object>(context: Context<S>): PropertyDecorator & ParameterDecorator {
  return Inject(contextToken(context));
}

function isContext(value: unknown): value is Context<object> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<Context<object>>).run === 'function' &&
    typeof (value as Partial<Context<object>>).name === 'string'
  );
}
