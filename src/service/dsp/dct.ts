/**
 * Orthonormal DCT-II matrix, `outputs` rows × `inputs` columns: row k = sqrt(2/N)·cos(πk(n+½)/N), row 0
 * scaled by 1/√2. Used to turn log mel energies into cepstra.
 */
export function dctMatrix(outputs: number, inputs: number): Float64Array[] {
  const rows: Float64Array[] = [];
  for (let k = 0; k < outputs; k++) {
    const row = new Float64Array(inputs);
    const scale = Math.sqrt(2 / inputs) * (k === 0 ? Math.SQRT1_2 : 1);
    for (let n = 0; n < inputs; n++) row[n] = scale * Math.cos((Math.PI * k * (n + 0.5)) / inputs);
    rows.push(row);
  }
  return rows;
}
