// Code systems (ICD-10 for diagnoses): the operator's loader, the lookups the API uses. The CLI
// (cli.ts) is an entry of its own.
export { hasCodes, loadCodes } from './load.ts';
export type { LoadCounts } from './load.ts';
export { CODE_PATTERN, CODE_SYSTEMS, CodeListError, HEADER, parseCodeList, readCodeFile } from './parse.ts';
export type { CodeRow, CodeSystem, LineProblem } from './parse.ts';
export { DEFAULT_LIMIT, MAX_LIMIT, lookupCodes, searchCodes, searchTerms } from './search.ts';
export type { CodeMatch, CodeReader } from './search.ts';
export { kodeRouter } from './procedures.ts';
