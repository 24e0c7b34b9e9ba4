import { describeConformance } from '@ambient/conformance';
import { ambientHttpHarness } from './helpers/ambient-harness.js';

describeConformance(ambientHttpHarness, { describe, it, afterAll });
