// Statements are built as text with numbered placeholders; the values travel separately, so input
// never becomes SQL text.

/** SQL parameters collected as the statement is built: p(value) returns its placeholder. */
export function params() {
  const values: unknown[] = [];
  return { values, p: (value: unknown) => (values.push(value), `$${values.length}`) };
}
