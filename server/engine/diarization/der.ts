/**
 * Diarization error rate as NIST md-eval defines it, without a forgiveness collar and with overlapped speech scored:
 * wherever `n` reference speakers talk at once, `n` seconds of speaker time count per second. Hypothesis speakers
 * are mapped one-to-one onto reference speakers so that the time they share is greatest (Hungarian
 * algorithm), and
 *
 *   missed      = Σ max(0, |ref| − |hyp|) · duration
 *   falseAlarm  = Σ max(0, |hyp| − |ref|) · duration
 *   confusion   = Σ (min(|ref|, |hyp|) − |correctly mapped|) · duration
 *   DER         = (missed + falseAlarm + confusion) / Σ |ref| · duration
 */

export interface Turn<Speaker = string | number> {
  start: number
  end: number
  speaker: Speaker
}

export interface DiarizationError {
  /** Seconds of reference speaker time. */
  reference: number
  missed: number
  falseAlarm: number
  confusion: number
  /** (missed + falseAlarm + confusion) / reference; 0 when there is no reference speech and no hypothesis. */
  der: number
}

/** Scores `hypothesis` against `reference` inside `[from, to)` (default: everywhere). */
export function diarizationError(
  reference: Turn[],
  hypothesis: Turn[],
  region: { from: number; to: number } = { from: Number.NEGATIVE_INFINITY, to: Number.POSITIVE_INFINITY },
): DiarizationError {
  const clip = (turns: Turn[]) =>
    turns
      .map((t) => ({ ...t, start: Math.max(t.start, region.from), end: Math.min(t.end, region.to) }))
      .filter((t) => t.end > t.start)
  const ref = clip(reference)
  const hyp = clip(hypothesis)
  const refSpeakers = [...new Set(ref.map((t) => t.speaker))]
  const hypSpeakers = [...new Set(hyp.map((t) => t.speaker))]
  const boundaries = [...new Set([...ref, ...hyp].flatMap((t) => [t.start, t.end]))].sort((a, b) => a - b)

  // Elementary pieces between consecutive boundaries, each with who talks in it on either side.
  const pieces = boundaries.slice(0, -1).map((start, i) => {
    const end = boundaries[i + 1] as number
    const middle = (start + end) / 2
    const active = (turns: Turn[], speakers: (string | number)[]) =>
      new Set(
        turns.filter((t) => t.start <= middle && t.end > middle).map((t) => speakers.indexOf(t.speaker)),
      )
    return { duration: end - start, ref: active(ref, refSpeakers), hyp: active(hyp, hypSpeakers) }
  })

  const shared = refSpeakers.map(() => new Float64Array(hypSpeakers.length))
  for (const piece of pieces) {
    for (const r of piece.ref) {
      const row = shared[r] as Float64Array
      for (const h of piece.hyp) row[h] = (row[h] as number) + piece.duration
    }
  }
  const mapping = bestMapping(shared, hypSpeakers.length)

  let referenceTime = 0
  let missed = 0
  let falseAlarm = 0
  let confusion = 0
  for (const { duration, ref: r, hyp: h } of pieces) {
    referenceTime += r.size * duration
    missed += Math.max(0, r.size - h.size) * duration
    falseAlarm += Math.max(0, h.size - r.size) * duration
    let correct = 0
    for (const speaker of r) if (h.has(mapping[speaker] ?? -1)) correct++
    confusion += (Math.min(r.size, h.size) - correct) * duration
  }
  const errors = missed + falseAlarm + confusion
  const der = referenceTime > 0 ? errors / referenceTime : errors > 0 ? Number.POSITIVE_INFINITY : 0
  return { reference: referenceTime, missed, falseAlarm, confusion, der }
}

/**
 * For each reference speaker, the hypothesis speaker it maps to (or -1), maximising the total shared time: the
 * Hungarian algorithm (Kuhn–Munkres with potentials) on a square matrix padded with zeros.
 */
function bestMapping(shared: Float64Array[], hypCount: number): number[] {
  const n = Math.max(shared.length, hypCount)
  const cost = (r: number, h: number) => -((shared[r - 1]?.[h - 1] as number | undefined) ?? 0)
  // 1-based, after the classic formulation: u and v are potentials, owner[h] the row holding column h.
  const u = new Float64Array(n + 1)
  const v = new Float64Array(n + 1)
  const owner = new Int32Array(n + 1)
  const way = new Int32Array(n + 1)
  for (let r = 1; r <= n; r++) {
    owner[0] = r
    let column = 0
    const slack = new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY)
    const used = new Uint8Array(n + 1)
    do {
      used[column] = 1
      const row = owner[column] as number
      let delta = Number.POSITIVE_INFINITY
      let next = 0
      for (let h = 1; h <= n; h++) {
        if (used[h]) continue
        const reduced = cost(row, h) - (u[row] as number) - (v[h] as number)
        if (reduced < (slack[h] as number)) {
          slack[h] = reduced
          way[h] = column
        }
        if ((slack[h] as number) < delta) {
          delta = slack[h] as number
          next = h
        }
      }
      for (let h = 0; h <= n; h++) {
        if (used[h]) {
          u[owner[h] as number] = (u[owner[h] as number] as number) + delta
          v[h] = (v[h] as number) - delta
        } else slack[h] = (slack[h] as number) - delta
      }
      column = next
    } while (owner[column] !== 0)
    do {
      const previous = way[column] as number
      owner[column] = owner[previous] as number
      column = previous
    } while (column !== 0)
  }
  const mapping = new Array<number>(shared.length).fill(-1)
  for (let h = 1; h <= n; h++) {
    const r = (owner[h] as number) - 1
    if (r < shared.length && h - 1 < hypCount) mapping[r] = h - 1
  }
  return mapping
}
