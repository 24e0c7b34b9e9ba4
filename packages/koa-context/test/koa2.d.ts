// koa 2 installed under an npm alias, for the conformance run on both majors; its shape is checked
// structurally by koaHarness (KoaModule).
declare module 'koa2' {
  const Koa: unknown;
  export default Koa;
}
