// Every walk over client- or file-supplied JSON (saves, imports, templates, tag trees) recurses
// as deep as the input nests; 1,000 levels in a 32 KB body overflowed the stack. Input is
// refused past this depth before any walk starts. Real ODR exports nest at most 15 levels
// (templates with related databases and tag trees), so 64 leaves room for deep templates.
export const MAX_JSON_DEPTH = 64;

/**
 * The nesting depth of a parsed JSON value (a scalar is 0, `[]` and `{}` are 1), counted with
 * an explicit stack, and only up to `limit + 1`: a hostile value costs no more than a valid one.
 */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > max) max = depth;
    if (max > limit) return max;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const c of children) if (c !== null && typeof c === 'object') stack.push([c, depth]);
  }
  return max;
}

/** The message for input nested past the limit, naming what was refused. */
export function tooDeepMessage(what: string, limit = MAX_JSON_DEPTH): string {
  return `${what} is nested more than ${limit} levels deep`;
}
