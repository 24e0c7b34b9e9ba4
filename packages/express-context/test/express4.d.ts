// express 4 installed under an npm alias, for the conformance run on both majors; its shape is checked
// structurally by expressHarness (ExpressModule).
declare module 'express4' {
  const express: unknown;
  export default express;
}
