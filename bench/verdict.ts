// How every bench judges a figure against its target, and prints it.

/** A target met or not, as the benches' tables print it. */
export const verdict = (ok: boolean) => (ok ? 'met' : 'SHORT');

/**
 * A ratio to three places, rounded away from its target's side (down for an "at least" target, up for
 * an "at most" one): judged on the ratio itself, a figure just short must not print as the target.
 */
export const ratioShown = (ratio: number, target: 'atLeast' | 'atMost') =>
  (target === 'atLeast' ? Math.floor(ratio * 1000) : Math.ceil(ratio * 1000)) / 1000;
