/**
 * The Sanger barcode of a prefix and number, computed here from reference-behaviour.md §5 (independently of
 * lib/domain/barcode.ts): check letter = (Σ byte × 1-based position of the reversed text) mod 23 + 65;
 * machine = numeric prefix (3) · number (7) · letter code (2) · EAN-13 check digit (weights 3,1 from the right).
 */
export function sanger(prefix: string, number: number): { human: string; machine: string } {
  const reversed = [...`${prefix}${number}`].reverse();
  const letter = String.fromCharCode((reversed.reduce((sum, c, i) => sum + c.charCodeAt(0) * (i + 1), 0) % 23) + 65);
  const numericPrefix = (prefix.charCodeAt(0) - 64) * 27 + (prefix.charCodeAt(1) - 64);
  const first12 = `${String(numericPrefix).padStart(3, '0')}${String(number).padStart(7, '0')}${letter.charCodeAt(0)}`;
  const weighted = [...first12].reverse().reduce((sum, d, i) => sum + Number(d) * (i % 2 === 0 ? 3 : 1), 0);
  return { human: `${prefix}${number}${letter}`, machine: `${first12}${(10 - (weighted % 10)) % 10}` };
}

/** The number inside a Sanger human barcode of the given prefix (`NT42K` → 42); throws on any other text. */
export function barcodeNumber(prefix: string, human: string): number {
  const match = new RegExp(`^${prefix}([1-9]\\d*)[A-W]$`).exec(human);
  if (!match) throw new Error(`${human} is not a ${prefix} barcode`);
  return Number(match[1]);
}

/** Column-order position names of a rows × columns grid: A1, B1, …, then A2, … */
export function columnOrder(rows: number, columns: number): string[] {
  const names: string[] = [];
  for (let c = 1; c <= columns; c++) for (let r = 0; r < rows; r++) names.push(`${String.fromCharCode(65 + r)}${c}`);
  return names;
}
