import { warnings } from './errors.js';
import { incompatibleCopy } from './registry.js';
import { version } from './version.js';

// Imported for this side effect by both entries: a copy of another release line was loaded first, so values
// set through one copy are invisible to the other.
if (incompatibleCopy !== undefined) warnings.incompatibleCopy(version, incompatibleCopy.version, incompatibleCopy.path);
