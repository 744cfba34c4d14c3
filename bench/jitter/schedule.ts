/**
 * When each chunk of the stream reaches the page, in ms from the start, for each scenario. Chunks stay in order, as
 * on one connection: a chunk held back holds back the ones behind it.
 */

export interface Scenario {
  label: string
  arrivals(chunks: number, chunkMs: number, random: () => number): number[]
}

const JITTER_MS = 100
const STALL_MS = 300
/** The local service makes speech 20–30 times faster than it plays. */
const PRODUCTION_SPEED = 25

/** Each chunk delayed by 0–200 ms, uniform: ±100 ms around a 100 ms mean delay. */
function jittered(nominal: number[], random: () => number): number[] {
  let previous = 0
  return nominal.map((t) => {
    previous = Math.max(previous, t + JITTER_MS + (random() * 2 - 1) * JITTER_MS)
    return previous
  })
}

const atRate = (chunks: number, chunkMs: number) => Array.from({ length: chunks }, (_, i) => i * chunkMs)

/** The connection stalls halfway: what is sent meanwhile arrives in one burst when it recovers. */
function stalled(nominal: number[]): number[] {
  const stallAt = nominal[Math.floor(nominal.length / 2)] ?? 0
  return nominal.map((t) => (t >= stallAt && t < stallAt + STALL_MS ? stallAt + STALL_MS : t))
}

export const SCENARIOS: Scenario[] = [
  { label: 'steady, real time', arrivals: (n, ms) => atRate(n, ms) },
  { label: 'real time, ±100 ms jitter', arrivals: (n, ms, random) => jittered(atRate(n, ms), random) },
  { label: 'real time, one 300 ms stall', arrivals: (n, ms) => stalled(atRate(n, ms)) },
  {
    label: `${PRODUCTION_SPEED}× real time, ±100 ms`,
    arrivals: (n, ms, random) => jittered(atRate(n, ms / PRODUCTION_SPEED), random),
  },
  {
    label: `${PRODUCTION_SPEED}× real time, 300 ms stall`,
    arrivals: (n, ms) => stalled(atRate(n, ms / PRODUCTION_SPEED)),
  },
]
