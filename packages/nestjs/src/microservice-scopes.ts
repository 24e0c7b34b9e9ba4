import { runInRoot, Snapshot } from '@ambient/core';
import { contextCarrier, runJob, type ContextCarrier } from '@ambient/correlation';

type Handler = ((...args: unknown[]) => unknown) & { next?: unknown };
type Method = (this: unknown, ...args: unknown[]) => unknown;
interface Prototype {
  [method: string]: unknown;
}

/** What @ambient/nestjs uses of @nestjs/microservices, loaded only where the application has it. */
interface Microservices {
  Server: { prototype: Prototype };
  ClientProxy: { prototype: Prototype };
  ClientRMQ?: { prototype: Prototype };
  ClientNats?: { prototype: Prototype };
  ClientMqtt?: { prototype: Prototype };
  ClientGrpcProxy?: { prototype: Prototype };
  Transport: Record<number, string>;
}
/** gRPC metadata, as @grpc/grpc-js's Metadata has it. */
interface GrpcMetadata {
  get(key: string): unknown[];
  set(key: string, value: string): void;
  clone(): GrpcMetadata;
}
/** A Kafka message as Nest's serializer gives it to kafkajs. */
interface KafkaMessage {
  headers?: Record<string, unknown>;
}
/** NATS message headers, as @nats-io's MsgHdrs has them. */
interface NatsHeaders extends Iterable<[string, string[]]> {
  has(key: string): boolean;
  set(key: string, value: string): void;
  append(key: string, value: string): void;
}

/** The exported classes that are `base` or extend it, and define `method` themselves. */
function subclassesWithOwn(
  exported: object,
  base: { prototype: Prototype },
  method: string,
): Array<{ prototype: Prototype }> {
  return Object.values(exported).filter(
    (value): value is { prototype: Prototype } =>
      typeof value === 'function' &&
      (value === base ||
        Object.prototype.isPrototypeOf.call(base.prototype, (value as { prototype: object }).prototype)) &&
      Object.hasOwn((value as { prototype: object }).prototype, method),
  );
}

function isNotInstalled(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/** An optional peer dependency, by a name bundlers and the type checker leave alone. */
function importOptional(name: string): Promise<unknown> {
  return import(name) as Promise<unknown>;
}

const carrierKeys = ['x-request-id', 'x-correlation-id', 'traceparent', 'tracestate'] as const;
const patched = new WeakSet<object>();

/**
 * Replaces `prototype[method]` with `wrap(original)`, once per prototype and method, whichever copy of this package
 * asks (two AmbientModule.forRoot() calls, a hybrid application).
 */
function patch(prototype: Prototype | undefined, method: string, wrap: (original: Method) => Method): void {
  const original = prototype?.[method];
  if (prototype === undefined || typeof original !== 'function' || patched.has(original)) return;
  const replacement = wrap(original as Method);
  patched.add(replacement);
  prototype[method] = replacement;
}

/** A header of a transport's message, as a string: a map's `get` (NATS, gRPC), or an object's key; else undefined. */
function headerOf(source: unknown, key: string): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const getter = (source as { get?: unknown }).get;
  let value: unknown =
    typeof getter === 'function' ? getter.call(source, key) : (source as Record<string, unknown>)[key];
  if (Array.isArray(value)) value = value[0];
  if (Buffer.isBuffer(value)) value = value.toString('utf8');
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The headers of the message a handler was called with, by transport: RabbitMQ's message properties, NATS headers,
 * MQTT 5 user properties, Kafka headers, gRPC metadata (the handler's second argument there). Redis and TCP
 * messages have none.
 */
function headersOf(context: unknown): unknown {
  if (typeof context !== 'object' || context === null) return undefined;
  const host = context as {
    getMessage?: () => unknown;
    getHeaders?: () => unknown;
    getPacket?: () => unknown;
    get?: unknown;
  };
  if (typeof host.getHeaders === 'function') return host.getHeaders(); // NatsContext
  if (typeof host.getPacket === 'function') {
    return (host.getPacket() as { properties?: { userProperties?: unknown } } | undefined)?.properties?.userProperties;
  }
  if (typeof host.getMessage === 'function') {
    const message = host.getMessage() as { properties?: { headers?: unknown }; headers?: unknown } | undefined;
    return message?.properties?.headers ?? message?.headers; // RmqContext, KafkaContext
  }
  if (typeof host.get === 'function') return context; // gRPC's Metadata
  return undefined;
}

function carrierOf(context: unknown): ContextCarrier {
  const headers = headersOf(context);
  const carrier: ContextCarrier = {};
  for (const key of carrierKeys) {
    const value = headerOf(headers, key);
    if (value !== undefined) carrier[key] = value;
  }
  return carrier;
}

/**
 * A microservice handler run as one job: a fresh scope from the root with a new request id, and the message's
 * carrier (checked by runJob, like any untrusted id) as its causation, correlation and trace. Nest chains event
 * handlers of one pattern through `next`, set on the handler it was given and read from its own: both see one.
 */
function scopedHandler(pattern: unknown, system: string, handler: Handler): Handler {
  if (scopedHandlers.has(handler)) return handler; // a transport's addHandler that calls Server's
  const name = typeof pattern === 'string' ? pattern : JSON.stringify(pattern);
  const scoped: Handler = function ambientMessageHandler(this: unknown, ...args: unknown[]) {
    return runJob({ name, system, carrier: carrierOf(args[1]) }, () => keptInScope(Reflect.apply(handler, this, args)));
  };
  Object.defineProperty(scoped, 'next', {
    get: () => handler.next,
    set: (next: unknown) => (handler.next = next),
    configurable: true,
  });
  scopedHandlers.add(scoped);
  return scoped;
}

const scopedHandlers = new WeakSet<Handler>();

/**
 * A handler's result, subscribed in the job's scope. With an interceptor, Nest's handler returns an Observable that
 * nothing has run yet: the transport server subscribes to it after the handler returned, outside the job, and the
 * interceptors, pipes, the method and the exception filters would run there (nestjs/nest#8210).
 */
function keptInScope(result: unknown): unknown {
  const snapshot = new Snapshot();
  const bind = (value: unknown): unknown => {
    const subscribe = (value as { subscribe?: unknown } | null | undefined)?.subscribe;
    if (typeof subscribe !== 'function') return value;
    (value as { subscribe: Method }).subscribe = function (this: unknown, ...args: unknown[]) {
      return snapshot.run(() => Reflect.apply(subscribe, this, args) as unknown);
    };
    return value;
  };
  const then = (result as { then?: unknown } | null | undefined)?.then;
  return typeof then === 'function' ? (result as PromiseLike<unknown>).then(bind) : bind(result);
}

/**
 * Every `@MessagePattern` and `@EventPattern` handler of every transport runs in a job scope of its own, built from
 * the message's carrier, with the guards, interceptors, pipes and filters Nest runs around it; and `send`/`emit` of
 * a RabbitMQ, NATS or MQTT 5 `ClientProxy` carry the current scope in the message's headers (headers the caller
 * set win). Nest has no middleware for microservices (nestjs/nest#1627) and runs their handlers in whatever
 * context the broker's client calls back in (nestjs/nest#8210): the handler Nest registers with the transport is
 * the one place every message passes through.
 */
export async function scopeMicroservices(): Promise<void> {
  let microservices: Microservices;
  try {
    microservices = (await importOptional('@nestjs/microservices')) as Microservices;
  } catch (error) {
    if (isNotInstalled(error)) return; // an application without microservices
    throw error;
  }
  const { Server, Transport } = microservices;
  // Server's addHandler, and each transport's own where it has one (gRPC's never calls Server's; Kafka's does only
  // for patterns that are not regular expressions).
  const servers = subclassesWithOwn(microservices, Server, 'addHandler');
  for (const server of servers) {
    patch(
      server.prototype,
      'addHandler',
      (addHandler) =>
        function (this: unknown, pattern: unknown, handler: unknown, ...rest: unknown[]) {
          if (typeof handler !== 'function') return addHandler.call(this, pattern, handler, ...rest);
          const transportId = (this as { transportId?: unknown }).transportId;
          const system =
            typeof transportId === 'number' ? (Transport[transportId] ?? 'custom').toLowerCase() : 'custom';
          return addHandler.call(this, pattern, scopedHandler(pattern, system, handler as Handler), ...rest);
        },
    );
  }
  // A client connects on its first send, inside whichever request sends first; its connection's own loops (NATS's
  // status updates, reconnects) would keep that request's context for as long as the connection lives.
  for (const client of subclassesWithOwn(microservices, microservices.ClientProxy, 'connect')) {
    patch(
      client.prototype,
      'connect',
      (connect) =>
        function (this: unknown, ...args: unknown[]) {
          return runInRoot(() => connect.apply(this, args));
        },
    );
  }
  patch(
    microservices.ClientRMQ?.prototype,
    'mergeHeaders',
    (mergeHeaders) =>
      function (this: unknown, ...args: unknown[]) {
        const merged = mergeHeaders.apply(this, args) as Record<string, unknown> | undefined;
        const carrier = contextCarrier();
        return Object.keys(carrier).length === 0 ? merged : { ...carrier, ...merged };
      },
  );
  patch(
    microservices.ClientMqtt?.prototype,
    'mergePacketOptions',
    (mergePacketOptions) =>
      function (this: unknown, ...args: unknown[]) {
        const merged = mergePacketOptions.apply(this, args) as { properties?: Record<string, unknown> } | undefined;
        const carrier = contextCarrier();
        // User properties are MQTT 5's: an MQTT 3.1.1 packet has nowhere to carry them.
        const version = (this as { options?: { protocolVersion?: unknown } }).options?.protocolVersion;
        if (Object.keys(carrier).length === 0 || version !== 5) return merged;
        const userProperties = merged?.properties?.userProperties as Record<string, unknown> | undefined;
        return {
          ...merged,
          properties: { ...merged?.properties, userProperties: { ...carrier, ...userProperties } },
        };
      },
  );
  const nats = (await importOptional('@nats-io/transport-node').catch(() => undefined)) as
    { headers: () => NatsHeaders } | undefined;
  patch(
    microservices.ClientNats?.prototype,
    'mergeHeaders',
    (mergeHeaders) =>
      function (this: unknown, ...args: unknown[]) {
        const merged = mergeHeaders.apply(this, args) as NatsHeaders | undefined;
        const carrier = contextCarrier();
        if (Object.keys(carrier).length === 0 || nats === undefined) return merged;
        // A copy: headers the caller made once and sends again must not keep this request's ids.
        const headers = nats.headers();
        for (const [key, values] of merged ?? []) for (const value of values) headers.append(key, value);
        for (const [key, value] of Object.entries(carrier)) if (!headers.has(key)) headers.set(key, value);
        return headers;
      },
  );
  // Kafka: Nest's serializer makes the kafkajs message; the scope goes into its headers (headers set win). Its
  // prototype, since ClientsModule.register() makes clients when modules are declared, before this runs.
  const kafkaSerializer = (await importOptional('@nestjs/microservices/serializers/kafka-request.serializer.js').catch(
    () => undefined,
  )) as { KafkaRequestSerializer?: { prototype: Prototype } } | undefined;
  patch(
    kafkaSerializer?.KafkaRequestSerializer?.prototype,
    'serialize',
    (serialize) =>
      function (this: unknown, ...values: unknown[]) {
        return withKafkaHeaders(serialize.apply(this, values));
      },
  );
  // gRPC: a service method's second argument is the call's metadata; the scope goes there (keys set win).
  const grpc = (await importOptional('@grpc/grpc-js').catch(() => undefined)) as
    { Metadata: new () => GrpcMetadata } | undefined;
  patch(
    microservices.ClientGrpcProxy?.prototype,
    'createServiceMethod',
    (createServiceMethod) =>
      function (this: unknown, ...args: unknown[]) {
        const method = createServiceMethod.apply(this, args);
        if (typeof method !== 'function' || grpc === undefined) return method;
        return function (this: unknown, ...call: unknown[]) {
          const carrier = contextCarrier();
          const given = call[1];
          if (Object.keys(carrier).length > 0 && (given === undefined || given instanceof grpc.Metadata)) {
            // A copy: metadata the caller made once (an auth token) and passes again must not keep this request's ids.
            const metadata = given?.clone() ?? new grpc.Metadata();
            for (const [key, value] of Object.entries(carrier))
              if (metadata.get(key).length === 0) metadata.set(key, value);
            call[1] = metadata;
          }
          return Reflect.apply(method as Method, this, call);
        };
      },
  );
}

/** A Kafka message (or the promise of one) with the current scope added to its headers. */
function withKafkaHeaders(message: unknown): unknown {
  if (typeof (message as PromiseLike<unknown> | undefined)?.then === 'function') {
    return (message as PromiseLike<unknown>).then(withKafkaHeaders);
  }
  const carrier = contextCarrier();
  if (typeof message !== 'object' || message === null || Object.keys(carrier).length === 0) return message;
  const kafka = message as KafkaMessage;
  kafka.headers = { ...carrier, ...kafka.headers };
  return kafka;
}
