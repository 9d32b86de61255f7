/**
 * Band-limited interpolation of a sampled curve and refinement of its maxima, as Praat's periodicity
 * analyses do (Boersma 1993, section 3): a correlation function sampled at whole lags is read between the
 * lags by sinc interpolation under a raised-cosine taper, and a peak is located by maximising that
 * interpolated curve with Brent's method between the neighbouring lags.
 */

/**
 * The value of the curve through samples `y[0..n)` at fractional position `x`: sinc interpolation with a
 * raised-cosine taper over at most `maxDepth` samples on each side (fewer near the ends, so the same
 * number is used on both sides). The taper on each side reaches zero one sample beyond the outermost
 * sample used. Outside `[0, n-1]` the end values hold; at whole positions the sample itself is returned.
 * Depth 1 is linear and depth 2 cubic (Catmull–Rom) interpolation.
 */
export function interpolateSinc(y: ArrayLike<number>, x: number, maxDepth: number, n = y.length): number {
  if (n < 1) return NaN;
  if (x <= 0) return y[0]!;
  if (x >= n - 1) return y[n - 1]!;
  const midLeft = Math.floor(x);
  if (x === midLeft) return y[midLeft]!;
  const midRight = midLeft + 1;
  const depth = Math.min(maxDepth, midLeft + 1, n - 1 - midLeft);
  const frac = x - midLeft;
  if (depth <= 0) return y[frac < 0.5 ? midLeft : midRight]!;
  if (depth === 1) return y[midLeft]! + frac * (y[midRight]! - y[midLeft]!);
  if (depth === 2) {
    const p0 = y[midLeft - 1]!;
    const p1 = y[midLeft]!;
    const p2 = y[midRight]!;
    const p3 = y[midRight + 1]!;
    const f2 = frac * frac;
    return (
      p1 +
      0.5 * frac * (p2 - p0) +
      f2 * (p0 - 2.5 * p1 + 2 * p2 - 0.5 * p3) +
      f2 * frac * (1.5 * (p1 - p2) + 0.5 * (p3 - p0))
    );
  }
  // Every term has sin(π·d) = ±sin(π·frac) for its distance d from x, so only the taper's cosine varies;
  // it advances by a fixed angle per sample, computed by rotation instead of a cosine per term. Both
  // sides run in one loop: two independent rotations keep the processor busy.
  const near = 1 - frac; // distance of midRight
  const stepL = Math.PI / (frac + depth); // taper half-width on the left: x - (midRight - depth) + 1
  const stepR = Math.PI / (near + depth); // on the right: (midLeft + depth) - x + 1
  const cosStepL = Math.cos(stepL);
  const sinStepL = Math.sin(stepL);
  const cosStepR = Math.cos(stepR);
  const sinStepR = Math.sin(stepR);
  let cL = Math.cos(frac * stepL);
  let sL = Math.sin(frac * stepL);
  let cR = Math.cos(near * stepR);
  let sR = Math.sin(near * stepR);
  let even = 0;
  let odd = 0;
  for (let k = 0; k < depth; k++) {
    const term = (y[midLeft - k]! * (1 + cL)) / (frac + k) + (y[midRight + k]! * (1 + cR)) / (near + k);
    if (k & 1) odd += term;
    else even += term;
    const cL2 = cL * cosStepL - sL * sinStepL;
    sL = sL * cosStepL + cL * sinStepL;
    cL = cL2;
    const cR2 = cR * cosStepR - sR * sinStepR;
    sR = sR * cosStepR + cR * sinStepR;
    cR = cR2;
  }
  return ((even - odd) * 0.5 * Math.sin(Math.PI * frac)) / Math.PI;
}

const GOLDEN = (3 - Math.sqrt(5)) / 2;
const SQRT_EPSILON = Math.sqrt(Number.EPSILON);

/**
 * Brent's method (golden section with parabolic steps, Brent 1973) for the maximum of `f` on `[a, b]`,
 * to within `tolerance` plus a relative √ε, starting from `start` (default: the golden-section point).
 * Returns the place and the value there.
 */
export function maximizeBrent(
  f: (x: number) => number,
  lo: number,
  hi: number,
  tolerance: number,
  start?: number,
  maxIterations = 60,
): { x: number; value: number } {
  let a = lo;
  let b = hi;
  let x = start !== undefined && start > a && start < b ? start : a + GOLDEN * (b - a);
  let w = x;
  let v = x;
  let fx = -f(x); // minimise the negative
  let fw = fx;
  let fv = fx;
  let d = 0;
  let e = 0;
  for (let iter = 0; iter < maxIterations; iter++) {
    const middle = 0.5 * (a + b);
    const tol1 = SQRT_EPSILON * Math.abs(x) + tolerance / 3;
    const tol2 = 2 * tol1;
    if (Math.abs(x - middle) <= tol2 - 0.5 * (b - a)) break;
    let useGolden = true;
    if (Math.abs(e) > tol1) {
      // A parabola through x, w, v.
      let r = (x - w) * (fx - fv);
      let q = (x - v) * (fx - fw);
      let p = (x - v) * q - (x - w) * r;
      q = 2 * (q - r);
      if (q > 0) p = -p;
      else q = -q;
      r = e;
      e = d;
      if (Math.abs(p) < Math.abs(0.5 * q * r) && p > q * (a - x) && p < q * (b - x)) {
        d = p / q;
        const u = x + d;
        if (u - a < tol2 || b - u < tol2) d = x < middle ? tol1 : -tol1;
        useGolden = false;
      }
    }
    if (useGolden) {
      e = (x < middle ? b : a) - x;
      d = GOLDEN * e;
    }
    const u = x + (Math.abs(d) >= tol1 ? d : d > 0 ? tol1 : -tol1);
    const fu = -f(u);
    if (fu <= fx) {
      if (u < x) b = x;
      else a = x;
      v = w;
      fv = fw;
      w = x;
      fw = fx;
      x = u;
      fx = fu;
    } else {
      if (u < x) a = u;
      else b = u;
      if (fu <= fw || w === x) {
        v = w;
        fv = fw;
        w = u;
        fw = fu;
      } else if (fu <= fv || v === x || v === w) {
        v = u;
        fv = fu;
      }
    }
  }
  return { x, value: -fx };
}

/**
 * Precision of a refined peak position, samples. A peak's height is flat to second order there, and a
 * lag known to 1e-5 samples puts F0 within 1e-6 of itself at any pitch, far below what the track reports.
 */
const PEAK_TOLERANCE = 1e-5;

/**
 * The maximum of the sinc-interpolated curve through `y` near the local maximum at whole index `i`,
 * searched between `i - 1` and `i + 1` from the golden-section point, as Praat searches (near-flat peaks
 * can have two maxima a few 1e-9 apart in height; starting elsewhere can settle on the other one).
 * Returns the fractional index and the interpolated height.
 */
export function refineMaximum(y: ArrayLike<number>, i: number, depth: number, n = y.length): { x: number; value: number } {
  if (i <= 0) return { x: 0, value: y[0]! };
  if (i >= n - 1) return { x: n - 1, value: y[n - 1]! };
  // Searched as an offset from i, so the tolerance is absolute in samples.
  const best = maximizeBrent((u) => interpolateSinc(y, i + u, depth, n), -1, 1, PEAK_TOLERANCE);
  return { x: i + best.x, value: best.value };
}
