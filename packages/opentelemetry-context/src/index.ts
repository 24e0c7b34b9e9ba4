export { AmbientContextManager } from './context-manager.js';
