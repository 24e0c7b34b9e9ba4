import { describeConformance } from '@ambient/conformance';
import { ambientHttpHarness } from './helpers/ambient-harness.js';

// Ambient's own adapters claim both profiles: the rules any library must follow, and Ambient's own policy.
describeConformance(ambientHttpHarness, { describe, it, afterAll }, { profiles: ['universal', 'ambient'] });
