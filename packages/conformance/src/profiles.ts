import type { CaseProfile, CaseSize, ConformanceCase } from './case.js';
import { catalog } from './catalog.js';
import type { SoakSize } from './cases/soak.js';
import type { ConformanceHarness } from './harness.js';

/**
 * A named selection of cases. `universal`: what any request-context library must pass. `ambient`:
 * Ambient's own request-id and `traceparent` policy. `quick`: the universal cases at small request counts,
 * none of them slow, for a first try. `soak`: the soak case at an operator's size, 10,000 requests at
 * concurrency 200 on a fresh server; `soak-ci`: the same at 1,500 requests at concurrency 100, for CI.
 */
export type ConformanceProfile = 'universal' | 'ambient' | 'quick' | 'soak' | 'soak-ci';

interface ProfileDefinition {
  /** The cases it takes, by the profile each case declares. */
  readonly cases: CaseProfile;
  /** The size it builds them at. */
  readonly size: CaseSize;
  /** Whether it keeps cases tagged `slow`. */
  readonly slow: boolean;
}

// A later profile is one more row here: the cases it takes, at a size of its own.
const definitions: Readonly<Record<ConformanceProfile, ProfileDefinition>> = {
  universal: { cases: 'universal', size: 'full', slow: true },
  ambient: { cases: 'ambient', size: 'full', slow: true },
  quick: { cases: 'universal', size: 'quick', slow: false },
  soak: { cases: 'soak', size: 'full', slow: true },
  'soak-ci': { cases: 'soak', size: 'quick', slow: true },
};

/** Every profile's name, for a user interface or a report. */
export const conformanceProfiles = Object.keys(definitions) as readonly ConformanceProfile[];

/** What runs when no profile is named: the rules any library must follow, and none of Ambient's own. */
export const defaultProfiles: readonly ConformanceProfile[] = ['universal'];

export interface ConformanceOptions {
  /** The profiles to run, default `['universal']`; Ambient's own adapters run `['universal', 'ambient']`. */
  readonly profiles?: readonly ConformanceProfile[];
  /**
   * The soak case's size whichever profile selects it, in place of the profile's own: `{ requests,
   * concurrency }`, positive integers.
   */
  readonly soakSize?: SoakSize;
}

// Full size first: when two profiles hold one case at two sizes (universal and quick), the full one runs.
const sizeOrder: readonly CaseSize[] = ['full', 'quick'];

/** The cases the named profiles select for this harness, each once, in report order. */
export function conformanceCases(harness: ConformanceHarness, options: ConformanceOptions = {}): ConformanceCase[] {
  checkedOptionKeys(options);
  const profiles = checkedProfiles(options.profiles ?? defaultProfiles);
  const soakSize = checkedSoakSize(options.soakSize);
  const chosen = new Map<string, ConformanceCase>();
  for (const size of sizeOrder) {
    const selecting = profiles.map((name) => definitions[name]).filter((definition) => definition.size === size);
    if (selecting.length === 0) continue;
    for (const testCase of catalog(harness, size, soakSize)) {
      const selected = selecting.some(
        (definition) => testCase.profile === definition.cases && (definition.slow || !testCase.tags.includes('slow')),
      );
      if (selected && !chosen.has(testCase.id)) chosen.set(testCase.id, testCase);
    }
  }
  const order = new Map(catalog(harness, 'full').map((testCase, index) => [testCase.id, index]));
  const position = (testCase: ConformanceCase) => order.get(testCase.id) ?? order.size;
  return [...chosen.values()].sort((a, b) => position(a) - position(b));
}

const optionKeys: ReadonlyArray<keyof ConformanceOptions> = ['profiles', 'soakSize'];

// A misspelled key (`profile: ['soak']`) would otherwise run the default profile and pass.
function checkedOptionKeys(options: ConformanceOptions): void {
  for (const key of Object.keys(options)) {
    if (!(optionKeys as readonly string[]).includes(key))
      throw new TypeError(`unknown conformance option ${JSON.stringify(key)}; expected ${optionKeys.join(' or ')}`);
  }
}

function checkedProfiles(profiles: readonly ConformanceProfile[]): readonly ConformanceProfile[] {
  // Checked at run time too: a JavaScript caller's typo would otherwise select nothing and pass.
  const names: readonly unknown[] = profiles;
  if (names.length === 0) throw new TypeError(`profiles names none; name some of ${conformanceProfiles.join(', ')}`);
  for (const name of names) {
    if (typeof name !== 'string' || !Object.hasOwn(definitions, name))
      throw new TypeError(
        `unknown conformance profile ${JSON.stringify(name)}; expected one of ${conformanceProfiles.join(', ')}`,
      );
  }
  return profiles;
}

function checkedSoakSize(size: SoakSize | undefined): SoakSize | undefined {
  if (size === undefined) return undefined;
  for (const key of ['requests', 'concurrency'] as const) {
    const value: unknown = size[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
      throw new TypeError(`soakSize.${key} must be a positive integer; got ${JSON.stringify(value)}`);
  }
  return size;
}
