// A code list file as the operator gives it: UTF-8 CSV (RFC 4180 quoting, so names may hold commas),
// header `code,display_en,display_id`. Every line is checked before anything is loaded, and every
// bad line is reported with what to change, so that one run tells the operator everything to fix.
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';

export const CODE_SYSTEMS = ['icd-10'] as const;
export type CodeSystem = (typeof CODE_SYSTEMS)[number];

export const HEADER = ['code', 'display_en', 'display_id'] as const;

/** What the table's check constraint allows, per system (migrations/006_klinis.sql). */
export const CODE_PATTERN: Record<CodeSystem, RegExp> = { 'icd-10': /^[A-Z][0-9]{2}(\.[0-9A-Z]{1,4})?$/ };

export interface CodeRow {
  code: string;
  displayEn: string;
  displayId: string;
}

export interface LineProblem {
  line: number;
  message: string;
}

export class CodeListError extends Error {
  readonly problems: LineProblem[];
  constructor(problems: LineProblem[]) {
    super(
      `${problems.length} bad line${problems.length === 1 ? '' : 's'}: ${problems.map((p) => `line ${p.line}: ${p.message}`).join('; ')}`,
    );
    this.problems = problems;
    this.name = 'CodeListError';
  }
}

const HEADER_TEXT = HEADER.join(',');
// Line breaks and other control characters have no place in a name shown in a picker.
const CONTROL = /[\p{Cc}\p{Cf}]/u;

function codeProblem(code: string, system: CodeSystem): string | undefined {
  if (code === '') return 'the code is empty';
  if (CODE_PATTERN[system].test(code)) return undefined;
  const upper = code.toUpperCase();
  if (CODE_PATTERN[system].test(upper)) return `write the code in capitals: ${upper}`;
  const undotted = /^([A-Z][0-9]{2})([0-9A-Z]{1,4})$/.exec(upper);
  if (undotted) return `write the code with its dot: ${undotted[1]}.${undotted[2]}`;
  return `"${code}" is not an ICD-10 code: a capital letter, two digits, then optionally a dot and 1 to 4 digits or capitals (A09, J06.9)`;
}

function nameProblem(value: string, column: string, language: string): string | undefined {
  if (value === '') return `${column} (the ${language} name) is empty`;
  if (CONTROL.test(value)) return `${column} (the ${language} name) contains a line break or another control character`;
  if (value.includes('\uFFFD')) return `${column} (the ${language} name) is not UTF-8 text: save the file as UTF-8`;
  return undefined;
}

/** The friendlier words for what csv-parse refuses. */
function csvProblem(err: { code?: string; message: string; record?: unknown[] }): string {
  switch (err.code) {
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH':
      return `${err.record ? `${err.record.length} fields` : 'a wrong number of fields'}, expected 3 (${HEADER_TEXT}): put a name that contains a comma in double quotes`;
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'text after a closing quote: a quoted name ends at its quote, and a quote inside it is written twice ("")';
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quote opened on or before this line is never closed';
    default:
      return err.message;
  }
}

interface Parsed {
  record: string[];
  info: { lines: number };
}

function readRecords(text: string, problems: LineProblem[]): Parsed[] {
  return parse(text, {
    bom: true,
    info: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (err) => {
      if (err) problems.push({ line: (err as { lines?: number }).lines ?? 0, message: csvProblem(err) });
    },
  }) as unknown as Parsed[];
}

/**
 * Parses and checks a whole code list. `rows` holds the good lines; when `problems` is not empty the
 * list must not be loaded. Names are trimmed; codes must be exactly as the table stores them.
 */
export function parseCodeList(text: string, system: CodeSystem = 'icd-10'): { rows: CodeRow[]; problems: LineProblem[] } {
  const problems: LineProblem[] = [];
  const records = readRecords(text, problems);
  const [header, ...body] = records;
  if (!header || header.record.join(',') !== HEADER_TEXT) {
    const found = header ? header.record.join(',') : 'nothing';
    return { rows: [], problems: [{ line: 1, message: `the first line must be the header ${HEADER_TEXT} (found ${found})` }] };
  }
  const rows: CodeRow[] = [];
  const seen = new Map<string, number>();
  for (const { record, info } of body) {
    // info.lines is where the record ends; a quoted name can span lines.
    const line = info.lines - record.reduce((n, field) => n + (field.match(/\n/g)?.length ?? 0), 0);
    const [code = '', displayEn = '', displayId = ''] = record.map((field) => field.trim());
    const messages = [
      codeProblem(code, system),
      nameProblem(displayEn, 'display_en', 'English'),
      nameProblem(displayId, 'display_id', 'Indonesian'),
    ];
    const first = seen.get(code);
    if (code !== '' && first !== undefined) messages.push(`code ${code} is already on line ${first}: keep one of them`);
    else seen.set(code, line);
    const found = messages.filter((m): m is string => m !== undefined);
    for (const message of found) problems.push({ line, message });
    if (found.length === 0) rows.push({ code, displayEn, displayId });
  }
  if (body.length === 0 && problems.length === 0) problems.push({ line: 2, message: 'the file lists no codes' });
  problems.sort((a, b) => a.line - b.line);
  return { rows, problems };
}

/** Reads and checks a code list file; throws CodeListError naming every bad line. */
export async function readCodeFile(path: string, system: CodeSystem = 'icd-10'): Promise<CodeRow[]> {
  const { rows, problems } = parseCodeList(await readFile(path, 'utf8'), system);
  if (problems.length > 0) throw new CodeListError(problems);
  return rows;
}
