/** The p-th percentile (nearest rank) of a list of numbers; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

export const ratio = (service: number, floor: number): number => (floor > 0 && Number.isFinite(service) ? service / floor : NaN);
