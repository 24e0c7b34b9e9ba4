// bunyan 1.x, installed beside bunyan 2.x under the alias `bunyan1`; the two share @types/bunyan.
declare module 'bunyan1' {
  import bunyan from 'bunyan';
  export = bunyan;
}
