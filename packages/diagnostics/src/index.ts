import { diagnosticsFromEnvironment, enableDiagnostics } from './diagnostics.js';

export { diagnosticsReport, enableDiagnostics, type Diagnostics } from './diagnostics.js';
export type { DataLoaderClass } from './data-loader.js';
export type { DiagnosticsOptions } from './options.js';
export type { Capabilities, DiagnosticKind, DiagnosticReport, DiagnosticsCounts, PendingTimer } from './reports.js';
export type { DiagnosticsError, DiagnosticsErrorCode, DiagnosticsWarningCode } from './errors.js';

// AMBIENT_DIAGNOSTICS=1 (or `strict`) switches diagnostics on as this package loads:
//   AMBIENT_DIAGNOSTICS=1 node --import @ambient/diagnostics app.js
const fromEnvironment = diagnosticsFromEnvironment(process.env['AMBIENT_DIAGNOSTICS']);
if (fromEnvironment !== undefined) enableDiagnostics(fromEnvironment);
