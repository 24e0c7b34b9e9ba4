// pino 9 installed under an npm alias, to test the mixin on both supported majors; same API as pino.
declare module 'pino9' {
  import pino from 'pino';
  export default pino;
}
