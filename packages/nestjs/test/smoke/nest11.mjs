// `node --import ./nest11.mjs`: the process loads NestJS 11 from tools/nest11 (see nest11-resolve.mjs).
import { register } from 'node:module';

register('./nest11-resolve.mjs', import.meta.url);
