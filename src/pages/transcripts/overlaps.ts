import { clock } from './turns.ts'

/**
 * Overlapping speech on the review page: where, during a row (a turn or a part of one), another speaker talks while
 * the row's own speaker does. Pure: no React, no DOM.
 *
 * The service's turns never overlap (each is who holds the floor), but its diarization spans may: two people talking
 * at once each keep their spans. A row's own speaker talks where their spans (after edits: labels.ts, regionsOf) lie
 * inside the row; another speaker overlaps it where that speaker's spans meet those stretches.
 */

/** A speaker's talk in time: spans after edits, as the waveform draws them. */
export interface Talk {
  start: number
  end: number
  speaker: string | null
}

/** One stretch of another speaker talking at once with a row's speaker. */
export interface Overlap {
  speaker: string
  start: number
  end: number
}

/** A row as far as overlaps go: its times and the speaker it shows after edits. */
export interface OverlapRow {
  start: number | null
  end: number | null
  speaker: string | null
}

/** Stretches shorter than this (seconds) are not reported: spans that only touch, or a breath's worth of noise. */
export const MIN_OVERLAP_SECONDS = 0.1

type Interval = [number, number]

/** Each speaker's talk as sorted, disjoint intervals (touching or overlapping spans joined). */
function talkBySpeaker(talk: readonly Talk[]): Map<string, Interval[]> {
  const by = new Map<string, Interval[]>()
  for (const t of talk) {
    if (t.speaker === null || !(t.end > t.start)) continue
    const list = by.get(t.speaker) ?? []
    list.push([t.start, t.end])
    by.set(t.speaker, list)
  }
  for (const [speaker, list] of by) {
    list.sort((a, b) => a[0] - b[0])
    const joined: Interval[] = []
    for (const [s, e] of list) {
      const last = joined.at(-1)
      if (last && s <= last[1]) last[1] = Math.max(last[1], e)
      else joined.push([s, e])
    }
    by.set(speaker, joined)
  }
  return by
}

/** The parts of sorted, disjoint `list` inside [from, to]. */
function clip(list: readonly Interval[], from: number, to: number): Interval[] {
  let lo = 0
  let hi = list.length
  // The first interval ending after `from`.
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((list[mid] as Interval)[1] <= from) lo = mid + 1
    else hi = mid
  }
  const out: Interval[] = []
  for (let i = lo; i < list.length; i++) {
    const [s, e] = list[i] as Interval
    if (s >= to) break
    out.push([Math.max(s, from), Math.min(e, to)])
  }
  return out
}

/** Where two sorted, disjoint lists of intervals meet. */
function intersect(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    const [a0, a1] = a[i] as Interval
    const [b0, b1] = b[j] as Interval
    const s = Math.max(a0, b0)
    const e = Math.min(a1, b1)
    if (e > s) out.push([s, e])
    if (a1 < b1) i++
    else j++
  }
  return out
}

/**
 * For each row, the stretches in which another speaker talks at the same time as the row's own speaker, in time
 * order (several speakers interleaved), each at least MIN_OVERLAP_SECONDS long. A row without times or without a
 * speaker has none. `talk` is the spans after edits, in any order.
 */
export function overlapsOf(rows: readonly OverlapRow[], talk: readonly Talk[]): Overlap[][] {
  const by = talkBySpeaker(talk)
  if (by.size < 2) return rows.map(() => [])
  return rows.map((row) => {
    if (row.start === null || row.end === null || row.speaker === null || !(row.end > row.start)) return []
    const ownTalk = by.get(row.speaker)
    if (!ownTalk) return []
    const own = clip(ownTalk, row.start, row.end)
    if (own.length === 0) return []
    const out: Overlap[] = []
    for (const [speaker, list] of by) {
      if (speaker === row.speaker) continue
      for (const [start, end] of intersect(own, clip(list, row.start, row.end)))
        if (end - start >= MIN_OVERLAP_SECONDS) out.push({ speaker, start, end })
    }
    return out.sort((a, b) => a.start - b.start || a.end - b.end)
  })
}

/** How many of one speaker's stretches a row's note gives before it says how many more there are. */
export const NOTE_STRETCHES = 2

/**
 * What a row says about its overlaps, for everyone (the text is the cue, not a colour): "Also speaking: Jackson
 * 0:04.0–0:05.0" — every other speaker by the name reviewers gave them, in the order they first come in, with their
 * first NOTE_STRETCHES stretches and how many more. Empty without overlaps.
 */
export function overlapNote(overlaps: readonly Overlap[], name: (id: string) => string): string {
  if (overlaps.length === 0) return ''
  const bySpeaker = new Map<string, Overlap[]>()
  for (const o of overlaps) bySpeaker.set(o.speaker, [...(bySpeaker.get(o.speaker) ?? []), o])
  const parts = [...bySpeaker].map(([id, list]) => {
    const times = list.slice(0, NOTE_STRETCHES).map((o) => `${clock(o.start)}–${clock(o.end)}`)
    const more = list.length - times.length
    return `${name(id)} ${times.join(', ')}${more > 0 ? ` and ${more} more` : ''}`
  })
  return `Also speaking: ${parts.join('; ')}`
}

/**
 * The speakers' rows on the waveform, top to bottom: every speaker some region shows, in the page's speaker order
 * (unattributed last). One row per speaker, so two people talking at once are both seen.
 */
export function lanesOf(
  speakers: readonly string[],
  regions: ReadonlyArray<{ speaker: string | null }>,
): Array<string | null> {
  const shown = new Set(regions.map((r) => r.speaker))
  const known = speakers.filter((id) => shown.has(id))
  const others = [...shown].filter((id): id is string => id !== null && !speakers.includes(id))
  return [...known, ...others, ...(shown.has(null) ? [null] : [])]
}
