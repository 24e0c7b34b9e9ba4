export { contextKey, contextParams, contextTask, type ContextParameter, type ContextTask } from './context-task.js';
export {
  contextMethods,
  messageListener,
  taskHandler,
  type MethodRunOptions,
  type TaskRunOptions,
  type WorkerMethods,
} from './task-handlers.js';
export type { ThreadsContextError, ThreadsContextErrorCode } from './errors.js';
