/** The power spectrum (bins 0…n/2) by the DFT's definition, O(n²): the reference the fast transforms are tested against. */
export function directPower(x: ArrayLike<number>): number[] {
  const n = x.length;
  const out: number[] = [];
  for (let k = 0; k <= Math.floor(n / 2); k++) {
    let re = 0;
    let im = 0;
    for (let t = 0; t < n; t++) {
      re += x[t]! * Math.cos((2 * Math.PI * k * t) / n);
      im -= x[t]! * Math.sin((2 * Math.PI * k * t) / n);
    }
    out.push(re * re + im * im);
  }
  return out;
}
