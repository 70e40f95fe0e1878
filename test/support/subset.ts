/**
 * Differences between `actual` and `expected`, where every key and array element of `expected`
 * must be present and equal in `actual` (which may carry more keys). Arrays must match in
 * length and order.
 */
export function subsetDiff(actual: unknown, expected: unknown, at = '$'): string[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at}: expected an array, got ${JSON.stringify(actual)?.slice(0, 80)}`];
    if (actual.length !== expected.length) return [`${at}: expected ${expected.length} items, got ${actual.length}`];
    return expected.flatMap((e, i) => subsetDiff(actual[i], e, `${at}[${i}]`));
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual))
      return [`${at}: expected an object, got ${JSON.stringify(actual)?.slice(0, 80)}`];
    return Object.entries(expected).flatMap(([k, v]) =>
      k in actual ? subsetDiff((actual as Record<string, unknown>)[k], v, `${at}.${k}`) : [`${at}.${k}: missing`],
    );
  }
  return Object.is(actual, expected) ? [] : [`${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}
