// Module resolution hooks (node:module register) that load NestJS 11 from tools/nest11 in place of the
// workspace's Nest 12: every `@nestjs/*`, `rxjs` and `reflect-metadata` import from outside that folder (the
// fixtures, @ambient/nestjs itself) resolves as if made from there. Nest 11's own requires stay inside it.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const nest11 = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'tools', 'nest11');
const from = pathToFileURL(join(nest11, 'package.json')).href;
const insideNest11 = pathToFileURL(nest11).href;

export async function resolve(specifier, context, next) {
  const nestOwned = /^(?:@nestjs\/|rxjs(?:\/|$)|reflect-metadata$)/.test(specifier);
  if (nestOwned && !(context.parentURL ?? '').startsWith(insideNest11)) {
    // A Nest package tools/nest11 does not have (@nestjs/microservices) is absent, as in a Nest 11 application
    // without it: resolving it from the workspace would load Nest 12's beside Nest 11's.
    const name = specifier
      .split('/')
      .slice(0, specifier.startsWith('@') ? 2 : 1)
      .join('/');
    if (!existsSync(join(nest11, 'node_modules', name))) {
      throw Object.assign(new Error(`Cannot find package '${name}' in tools/nest11`), { code: 'ERR_MODULE_NOT_FOUND' });
    }
    return next(specifier, { ...context, parentURL: from });
  }
  return next(specifier, context);
}
