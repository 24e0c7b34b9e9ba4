import { expect, test } from 'tstyche';
import DataLoader from 'dataloader';
import {
  enableDiagnostics,
  diagnosticsReport,
  type Diagnostics,
  type DiagnosticReport,
  type DiagnosticsCounts,
} from '@ambient/diagnostics';

test('enableDiagnostics takes checked options and returns a handle', () => {
  expect(enableDiagnostics()).type.toBe<Diagnostics>();
  expect(
    enableDiagnostics({ strict: true, retainedAfterMs: 10_000, timerGraceMs: 500, drivers: false }),
  ).type.toBe<Diagnostics>();
  expect(enableDiagnostics).type.not.toBeCallableWith({ strict: 'yes' });
  expect(enableDiagnostics).type.not.toBeCallableWith({ verbose: true });
  expect(diagnosticsReport()).type.toBe<DiagnosticsCounts>();
});

test('a report is told apart by its kind', () => {
  enableDiagnostics({
    onReport(report) {
      expect(report).type.toBe<DiagnosticReport>();
      if (report.kind === 'crossed') {
        expect(report.ownerRequestId).type.toBe<string>();
        expect(report.foundRequestId).type.toBe<string | undefined>();
        expect(report.code).type.toBe<'WARN_AMBIENT_CONTEXT_CROSSED'>();
      }
      if (report.kind === 'timers')
        expect(report.timers[0]!.kind).type.toBe<'setTimeout' | 'setInterval' | 'setImmediate'>();
    },
  });
});

test('dataLoader takes the DataLoader class, and its report names both requests and the loader', () => {
  expect(enableDiagnostics({ dataLoader: DataLoader })).type.toBe<Diagnostics>();
  expect(enableDiagnostics).type.not.toBeCallableWith({
    dataLoader: new DataLoader(async (keys: readonly string[]) => keys),
  });
  enableDiagnostics({
    dataLoader: DataLoader,
    onReport(report) {
      if (report.kind === 'sharedDataLoader') {
        expect(report.code).type.toBe<'WARN_AMBIENT_SHARED_DATALOADER'>();
        expect(report.loader).type.toBe<string | undefined>();
        expect(report.foundRequestId).type.toBe<string>();
      }
    },
  });
});
