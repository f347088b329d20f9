// A bound on JSON nesting, checked before anything parses the text recursively. JSON.parse itself
// copes with deep input, but what runs on the result (validation, superjson, deep merges, logging
// serializers) recurses, and 20,000 levels of `[` exhaust the stack: "Maximum call stack size
// exceeded", a 500 for a caller's mistake. The scan is one pass, iterative, over bytes.

/** Deeper than any document SIMRS accepts (patients, session properties, OAuth bodies are flat-ish). */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }

/** True when `text`, read as JSON, nests arrays and objects deeper than `maxDepth`. */
export function jsonTooDeep(text: string | Uint8Array, maxDepth = MAX_JSON_DEPTH): boolean {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (OPEN.has(b)) {
      if (++depth > maxDepth) return true;
    } else if (CLOSE.has(b)) depth--;
  }
  return false;
}

/**
 * True when every string (and key) in a parsed JSON value is well-formed Unicode without NUL: Postgres
 * stores neither a lone surrogate nor U+0000 in text or jsonb, and refuses the whole statement.
 */
export function storableStrings(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed() && !value.includes('\u0000');
  if (Array.isArray(value)) return value.every(storableStrings);
  if (value && typeof value === 'object') return Object.entries(value).every(([k, v]) => storableStrings(k) && storableStrings(v));
  return true;
}
