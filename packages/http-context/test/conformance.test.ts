import { describeConformance } from '@ambient/conformance';
import { ambientHttpHarness } from './helpers/ambient-harness.js';

// Ambient's own adapters claim both profiles (the rules any library must follow, and Ambient's own policy),
// and pass the soak at CI size: a fresh server, its first request included, nothing crossed or retained.
// The universal cases at their quick sizes, and at full size where AMBIENT_CONFORMANCE_SIZE=full asks for them
// (scripts/node-matrix.mjs does on its Node 24 lines, one for each AsyncLocalStorage implementation).
const universalProfile = process.env.AMBIENT_CONFORMANCE_SIZE === 'full' ? 'universal' : 'quick';
describeConformance(
  ambientHttpHarness,
  { describe, it, afterAll },
  { profiles: [universalProfile, 'ambient', 'soak-ci'] },
);
