import { formatTraceParent, parseTraceParent } from '@ambient/correlation';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const parentId = '00f067aa0ba902b7';

describe('parseTraceParent', () => {
  it('reads the specification example', () => {
    expect(parseTraceParent(`00-${traceId}-${parentId}-01`)).toEqual({ traceId, parentId, traceFlags: '01' });
  });

  it('accepts ids that are zeros but for their last digit', () => {
    const [lowTrace, lowParent] = [`${'0'.repeat(31)}1`, `${'0'.repeat(15)}1`];
    expect(parseTraceParent(`00-${lowTrace}-${lowParent}-00`)).toEqual({
      traceId: lowTrace,
      parentId: lowParent,
      traceFlags: '00',
    });
  });

  it('accepts later versions, ignoring fields after the fourth', () => {
    expect(parseTraceParent(`cc-${traceId}-${parentId}-01-what-the-future-will-be-like`)).toEqual({
      traceId,
      parentId,
      traceFlags: '01',
    });
    expect(parseTraceParent(`01-${traceId}-${parentId}-09`)).toEqual({ traceId, parentId, traceFlags: '09' });
  });

  it.each([
    ['undefined', undefined],
    ['empty', ''],
    ['version ff', `ff-${traceId}-${parentId}-01`],
    ['uppercase', `00-${traceId.toUpperCase()}-${parentId}-01`],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${parentId}-01`],
    ['all-zero parent id', `00-${traceId}-${'0'.repeat(16)}-01`],
    ['version 00 with more fields', `00-${traceId}-${parentId}-01-more`],
    ['version 00 too short', `00-${traceId}-${parentId}-1`],
    ['a later version without a dash after the flags', `cc-${traceId}-${parentId}-01x`],
    ['non-hex', `00-${traceId.slice(0, -1)}z-${parentId}-01`],
    ['a non-hex version', `0g-${traceId}-${parentId}-01`],
    ['a non-hex parent id', `00-${traceId}-${parentId.slice(0, -1)}g-01`],
    ['uppercase flags', `00-${traceId}-${parentId}-0A`],
    ['wrong separators', `00_${traceId}_${parentId}_01`],
    ['two headers joined by Node', `00-${traceId}-${parentId}-01, 00-${traceId}-${parentId}-00`],
  ])('rejects %s', (_what, value) => expect(parseTraceParent(value)).toBeUndefined());
});

describe('formatTraceParent', () => {
  it('writes a version-00 header that parses back', () => {
    const header = formatTraceParent(traceId, parentId, '01');
    expect(header).toBe(`00-${traceId}-${parentId}-01`);
    expect(parseTraceParent(header)).toEqual({ traceId, parentId, traceFlags: '01' });
    expect(formatTraceParent(traceId, parentId)).toBe(`00-${traceId}-${parentId}-00`);
  });
});
