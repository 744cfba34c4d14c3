/** Small helpers the benchmark scripts share: percentiles and a fixed-width table. */

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[rank] as number
}

export function summary(values: number[], digits = 1): string {
  return `p50 ${percentile(values, 50).toFixed(digits)} ms, p95 ${percentile(values, 95).toFixed(digits)} ms (n=${values.length})`
}
