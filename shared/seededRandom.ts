/**
 * mulberry32: a small, fast generator of numbers in [0, 1) from a 32-bit seed. The same seed
 * always gives the same sequence, which is what the sample data and the seeded tests
 * (ODR_CRASH_SEED, HOSTILE_SEED, …) rely on. Not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
