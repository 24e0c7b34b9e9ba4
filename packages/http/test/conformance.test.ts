import { describeConformance } from '@ambient/conformance';
import { ambientHttpHarness } from './helpers/ambient-harness.js';

// Ambient's own adapters claim both profiles (the rules any library must follow, and Ambient's own policy),
// and pass the soak at CI size: a fresh server, its first request included, nothing crossed or retained.
// The universal cases, at the quick sizes where scripts/node-matrix.mjs asks for them on a repeat line.
const universalProfile = process.env.AMBIENT_CONFORMANCE_SIZE === 'quick' ? 'quick' : 'universal';
describeConformance(
  ambientHttpHarness,
  { describe, it, afterAll },
  { profiles: [universalProfile, 'ambient', 'soak-ci'] },
);
