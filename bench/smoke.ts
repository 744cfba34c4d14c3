/**
 * The benchmarks' smoke mode: `--smoke` on the command line or `BENCH_SMOKE=1`. `npm test` runs every benchmark this
 * way after the tests (scripts/test-all.mjs), with counts so small that the figures mean nothing — what it proves is
 * that each benchmark still starts, drives the real stack end to end and prints its table, so none can rot unseen.
 */
export const SMOKE = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1'

/** `full` normally, `smoke` in smoke mode; an environment variable `name`, when set, wins in both. */
export function count(full: number, smoke: number, name?: string): number {
  const given = name === undefined ? undefined : process.env[name]
  if (given !== undefined && given !== '') return Number(given)
  return SMOKE ? smoke : full
}

/** Says at the top of a benchmark's output that its figures are not to be read. */
export function announceSmoke(name: string): void {
  if (SMOKE) console.log(`${name}: smoke run (tiny counts; the figures below are not measurements)`)
}
