// Host b's clock, CLOCK_SKEW_MS ahead of the others. Network namespaces share the kernel's wall clock, and a time
// namespace offsets only the monotonic and boot-time clocks (time_namespaces(7)), so host b's processes take the
// skew from this preload (node --require): Date, which Ambient's UUIDv7 ids, BullMQ and pg read, and
// performance.timeOrigin, from which the OpenTelemetry SDK dates spans and log records.
const skew = Number(process.env.CLOCK_SKEW_MS);
const RealDate = Date;

class SkewedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + skew);
    else super(...args);
  }

  static now() {
    return RealDate.now() + skew;
  }
}
// `Date()` called without new gives the time as a string; a class alone would throw there.
globalThis.Date = new Proxy(SkewedDate, { apply: () => new SkewedDate().toString() });
Object.defineProperty(performance, 'timeOrigin', { value: performance.timeOrigin + skew });
