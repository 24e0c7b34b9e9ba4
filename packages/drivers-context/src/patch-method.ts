/**
 * Replaces a method where it is defined (the prototype that owns it, not a subclass that inherits it), so that
 * every subclass and every instance, made before or after, goes through the replacement. Returns the function
 * that puts the original back, or `undefined` where there is no such method. A method already replaced by this
 * package is left as it is: guarding twice never wraps twice.
 */
const kOriginal = Symbol('@ambient/drivers-context.original');

type Method = (this: unknown, ...args: unknown[]) => unknown;

export function patchMethod(
  start: object | undefined,
  name: string,
  replace: (original: Method) => Method,
): (() => void) | undefined {
  let owner: object | null | undefined = start;
  while (owner !== null && owner !== undefined && !Object.prototype.hasOwnProperty.call(owner, name)) {
    owner = Object.getPrototypeOf(owner) as object | null;
  }
  if (owner === null || owner === undefined) return undefined;
  const target = owner as Record<string, unknown>;
  const original = target[name];
  if (typeof original !== 'function' || kOriginal in original) return undefined;
  const replacement = replace(original as Method);
  Object.defineProperty(replacement, kOriginal, { value: original });
  Object.defineProperty(replacement, 'name', { value: original.name });
  target[name] = replacement;
  return () => {
    if (target[name] === replacement) target[name] = original;
  };
}

/**
 * `args` with their last one bound by `bind` when it is a function (a Node-style callback), in place: for the
 * rest array of a patched method, which nothing else holds (one array fewer per call: a pg query passes three
 * patched methods).
 */
export function bindLastCallback(args: unknown[], bind: <F extends (...a: never[]) => unknown>(fn: F) => F): unknown[] {
  const last = args.length - 1;
  const callback = args[last];
  if (last >= 0 && typeof callback === 'function') args[last] = bind(callback as (...a: never[]) => unknown);
  return args;
}
