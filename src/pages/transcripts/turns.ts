import type { StoredResult } from '../../../schema/index.ts'

/**
 * The rows of the review page and the time logic over them. Pure: no React, no DOM.
 *
 * A row ("entry") is a speaker turn when the service sent `diarization.turns`; otherwise (no diarization asked,
 * diarization failed, or no text could be matched to the spans) it is a transcript segment without a speaker; with
 * neither, the whole text as one untimed entry. An entry's `index` is its position in that list, which is what label
 * edits refer to.
 */

/** A word of a row with its time: the recognizer's (with its confidence, when it gave one) or a correction's. */
export interface ReviewWord {
  text: string
  start: number
  end: number
  /** The decoder's posterior, 0…1. */
  confidence?: number
  /** A reviewer's word, not the recognizer's. */
  edited?: boolean
}

export interface Entry {
  index: number
  /**
   * Which part of a turn a reviewer split this row is (labels.ts, `partsOf`): 0 (or absent) for the turn as the
   * service sent it or its first part; k for the part after the turn's k-th split point as saved.
   */
  part?: number
  /** The speaker the service gave, or null (the trailing unattributed entry, or no speaker labels at all). */
  speaker: string | null
  start: number | null
  end: number | null
  text: string
  /**
   * The row's words with times when they are not the recognizer's as found for `text` (a corrected turn, the part of
   * a split turn): corrections.ts, `wordsOf`.
   */
  words?: ReviewWord[]
}

export type EntrySource = 'turns' | 'segments' | 'text' | 'none'

export interface Entries {
  entries: Entry[]
  source: EntrySource
}

export function entriesOf(result: StoredResult): Entries {
  const turns = result.diarization?.turns
  if (turns) {
    return {
      source: 'turns',
      entries: turns.map((t, index) => ({
        index,
        speaker: t.speaker,
        start: t.start,
        end: t.end,
        text: t.text,
      })),
    }
  }
  if (result.segments && result.segments.length > 0) {
    return {
      source: 'segments',
      entries: result.segments.map((s, index) => ({
        index,
        speaker: null,
        start: s.start,
        end: s.end,
        text: s.text.trim(),
      })),
    }
  }
  if (result.text.trim()) {
    return {
      source: 'text',
      entries: [{ index: 0, speaker: null, start: null, end: null, text: result.text.trim() }],
    }
  }
  return { source: 'none', entries: [] }
}

/**
 * Entries with times, sorted by start, for finding the one under the playhead. Built once per list of rows. Answers
 * are positions in the list it was built from (which, for the service's entries, are their indices).
 */
export class TimeIndex {
  /** Positions in the list, in start order. */
  private readonly order: Int32Array
  private readonly starts: Float64Array
  private readonly ends: Float64Array
  /** The latest end among entries 0…i in start order: how far back an entry can still be running. */
  private readonly reach: Float64Array

  constructor(entries: readonly Entry[]) {
    const timed = entries
      .map((e, position) => ({ e, position }))
      .filter((x): x is { e: TimedEntry; position: number } => x.e.start !== null && x.e.end !== null)
      .sort((a, b) => a.e.start - b.e.start || a.position - b.position)
    this.order = Int32Array.from(timed.map((x) => x.position))
    this.starts = Float64Array.from(timed.map((x) => x.e.start))
    this.ends = Float64Array.from(timed.map((x) => Math.max(x.e.end, x.e.start)))
    this.reach = reachOf(this.ends)
  }

  get size(): number {
    return this.order.length
  }

  /** Position (in start order) of the last entry starting at or before `t`, or -1. */
  private lastStartingBy(t: number): number {
    let lo = 0
    let hi = this.starts.length - 1
    let found = -1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if ((this.starts[mid] as number) <= t) {
        found = mid
        lo = mid + 1
      } else hi = mid - 1
    }
    return found
  }

  /** The entry playing at `t` (start ≤ t < end), or null in a gap. Overlaps go to the later start. */
  at(t: number): number | null {
    const pos = this.lastStartingBy(t)
    if (pos < 0) return null
    // A later-starting entry may have ended while an earlier, longer one still runs: look back while one could.
    for (let p = pos; p >= 0 && t < (this.reach[p] as number); p--) {
      if (t < (this.ends[p] as number)) return this.order[p] as number
    }
    return null
  }

  /** The first entry starting after `t` (by more than 10 ms), or null. */
  next(t: number): number | null {
    const pos = this.lastStartingBy(t + 0.01) + 1
    return pos < this.order.length ? (this.order[pos] as number) : null
  }

  /**
   * Where "previous turn" goes from `t`: the start of the current entry when more than `restartAfter` seconds of
   * it have played (like a music player's back button), otherwise the entry before it.
   */
  previous(t: number, restartAfter = 1): number | null {
    const pos = this.lastStartingBy(t)
    if (pos < 0) return null
    if (t - (this.starts[pos] as number) > restartAfter) return this.order[pos] as number
    return pos > 0 ? (this.order[pos - 1] as number) : (this.order[0] as number)
  }

  startOf(position: number): number | undefined {
    return this.starts[position]
  }
}

/** How long [a0, a1] and [b0, b1] overlap, in seconds (0 when apart). */
export function overlap(a0: number, a1: number, b0: number, b1: number): number {
  return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0))
}

/**
 * For each span, the entry it overlaps most (the earlier one on a tie), or null when it overlaps none: the contract's
 * rule for a segment straddling a speaker change (whole-segment attribution, no duplication, no loss), used here to
 * decide which turn a diarization span belongs to. Spans and entries may come in any order.
 */
export function attributeSpans(
  spans: ReadonlyArray<{ start: number; end: number }>,
  entries: readonly Entry[],
): Array<number | null> {
  const timed = timedInStartOrder(entries)
  const starts = timed.map((e) => e.start)
  const reach = reachOf(Float64Array.from(timed.map((e) => e.end)))
  return spans.map((span) => {
    let best: number | null = null
    let bestOverlap = 0
    // Entries starting before the span ends, walking back while one of them could still reach into it.
    for (let p = upperBound(starts, span.end) - 1; p >= 0 && (reach[p] as number) > span.start; p--) {
      const e = timed[p] as TimedEntry
      const o = overlap(span.start, span.end, e.start, e.end)
      // Walking back, an equal overlap belongs to the earlier entry.
      if (o > 0 && o >= bestOverlap) {
        best = e.index
        bestOverlap = o
      }
    }
    return best
  })
}

type TimedEntry = Entry & { start: number; end: number }

function timedInStartOrder(entries: readonly Entry[]): TimedEntry[] {
  return entries
    .filter((e): e is TimedEntry => e.start !== null && e.end !== null)
    .sort((a, b) => a.start - b.start || a.index - b.index)
}

function reachOf(ends: Float64Array): Float64Array {
  const reach = new Float64Array(ends.length)
  let max = Number.NEGATIVE_INFINITY
  for (let i = 0; i < ends.length; i++) {
    max = Math.max(max, ends[i] as number)
    reach[i] = max
  }
  return reach
}

function upperBound(sorted: readonly number[], value: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((sorted[mid] as number) <= value) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * The time under a click at `clientX` on a waveform whose whole (scrolled, zoomed) drawing spans `rect`, clamped to
 * the recording.
 */
export function timeAtX(clientX: number, rect: { left: number; width: number }, duration: number): number {
  if (!(rect.width > 0) || !(duration > 0)) return 0
  return Math.min(duration, Math.max(0, ((clientX - rect.left) / rect.width) * duration))
}

/** `m:ss.t` under an hour, `h:mm:ss` above: the page's time display. */
export function clock(seconds: number | null, tenths = true): string {
  if (seconds === null || !Number.isFinite(seconds)) return '–'
  const total = Math.max(0, seconds)
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  const ss = tenths && h === 0 ? s.toFixed(1).padStart(4, '0') : String(Math.floor(s)).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`
}
