import { describeConformance } from '@ambient/conformance';
import { ambientHttpHarness } from './helpers/ambient-harness.js';

// Ambient's own adapters claim both profiles (the rules any library must follow, and Ambient's own policy),
// and pass the soak at CI size: a fresh server, its first request included, nothing crossed or retained.
// scripts/node-matrix.mjs sets AMBIENT_CONFORMANCE_SIZE=quick on the lines that repeat this run.
const universal = process.env.AMBIENT_CONFORMANCE_SIZE === 'quick' ? 'quick' : 'universal';
describeConformance(ambientHttpHarness, { describe, it, afterAll }, { profiles: [universal, 'ambient', 'soak-ci'] });
