import type { LabelEdits, StoredResult } from '../../../schema/index.ts'
import { attributeSpans, type Entry } from './turns.ts'

/**
 * Reviewers' label edits over a transcript: rename a speaker, merge one speaker into another, give a turn to another
 * speaker (or to nobody). Edits are data beside the service's result, which is never changed. Pure functions; every
 * edit returns a new object, so undo is keeping the previous ones.
 */

export const UNATTRIBUTED = 'Unattributed'

/** Follows merges to the speaker that stands for `id` now. Cycles (which edits never make) stop where they close. */
export function resolveSpeaker(edits: LabelEdits, id: string | null): string | null {
  let current = id
  const seen = new Set<string>()
  while (current !== null && edits.merges[current] !== undefined && !seen.has(current)) {
    seen.add(current)
    current = edits.merges[current] as string
  }
  return current
}

/** The speaker an entry shows after edits: its reassignment if any, else its own; both through merges. */
export function speakerOf(edits: LabelEdits, entry: Pick<Entry, 'index' | 'speaker'>): string | null {
  const key = String(entry.index)
  const assigned = Object.hasOwn(edits.turns, key) ? (edits.turns[key] ?? null) : entry.speaker
  return resolveSpeaker(edits, assigned)
}

/** What people read for a speaker id: the name given to it, or the id itself; null reads as "Unattributed". */
export function nameOf(edits: LabelEdits, id: string | null): string {
  if (id === null) return UNATTRIBUTED
  return edits.names[id] ?? id
}

/** Every speaker id the transcript mentions, in the service's order (diarization.speakers, then turns, segments). */
export function originalSpeakers(result: StoredResult): string[] {
  const ids = new Set(result.diarization?.speakers ?? [])
  for (const t of result.diarization?.turns ?? []) if (t.speaker) ids.add(t.speaker)
  for (const s of result.diarization?.segments ?? []) ids.add(s.speaker)
  return [...ids]
}

/** The speakers still standing after merges, in their original order. */
export function currentSpeakers(all: readonly string[], edits: LabelEdits): string[] {
  return all.filter((id) => resolveSpeaker(edits, id) === id)
}

/** Sets (or, with a blank name, clears) the display name of `id`. */
export function rename(edits: LabelEdits, id: string, name: string): LabelEdits {
  const names = { ...edits.names }
  const trimmed = name.trim()
  if (trimmed === '' || trimmed === id) delete names[id]
  else names[id] = trimmed.slice(0, 80)
  return { ...edits, names }
}

/**
 * Merges `from` into `into`: every turn and span of `from` shows as `into`. Both are resolved first, so merging into a
 * speaker that was itself merged goes to where it went; merging a speaker into itself changes nothing.
 */
export function merge(edits: LabelEdits, from: string, into: string): LabelEdits {
  const source = resolveSpeaker(edits, from)
  const target = resolveSpeaker(edits, into)
  if (source === null || target === null || source === target) return edits
  return { ...edits, merges: { ...edits.merges, [source]: target } }
}

/**
 * Gives entry `entry` to `speaker` (null: unattributed). Choosing what the entry shows without a reassignment removes
 * the reassignment instead of storing a no-op.
 */
export function reassign(
  edits: LabelEdits,
  entry: Pick<Entry, 'index' | 'speaker'>,
  speaker: string | null,
): LabelEdits {
  const turns = { ...edits.turns }
  const key = String(entry.index)
  delete turns[key]
  const withoutIt = { ...edits, turns }
  if (speakerOf(withoutIt, entry) === resolveSpeaker(edits, speaker)) return withoutIt
  return { ...edits, turns: { ...turns, [key]: speaker } }
}

export function hasEdits(edits: LabelEdits): boolean {
  return (
    Object.keys(edits.names).length + Object.keys(edits.merges).length + Object.keys(edits.turns).length > 0
  )
}

/** Colours for speakers, by their position among the original speakers (so a merge shows the target's colour). */
export const SPEAKER_COLORS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#9467bd',
  '#ff7f0e',
  '#17becf',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
] as const

export function colorOf(all: readonly string[], id: string | null): string {
  if (id === null) return '#6b7280'
  const i = all.indexOf(id)
  return SPEAKER_COLORS[(i < 0 ? all.length : i) % SPEAKER_COLORS.length] as string
}

export interface SpeakerRegion {
  id: string
  start: number
  end: number
  /** After edits: merges, and the reassignment of the turn the span belongs to. */
  speaker: string | null
}

/**
 * One region per diarization span, coloured by the speaker it shows after edits. A span belongs to the turn it
 * overlaps most (a span straddling a turn boundary goes wholly to one side); when that turn was reassigned the span
 * follows it, otherwise it keeps its own speaker through merges.
 */
export function regionsOf(
  result: StoredResult,
  entries: readonly Entry[],
  edits: LabelEdits,
): SpeakerRegion[] {
  const spans = (result.diarization?.segments ?? []).filter((s) => s.end > s.start)
  const reassigned = Object.keys(edits.turns).length > 0
  const owners = reassigned ? attributeSpans(spans, entries) : []
  return spans.map((s, i) => {
    const owner = owners[i]
    const key = owner === null || owner === undefined ? null : String(owner)
    const speaker =
      key !== null && Object.hasOwn(edits.turns, key)
        ? resolveSpeaker(edits, edits.turns[key] ?? null)
        : resolveSpeaker(edits, s.speaker)
    return { id: `span-${s.id ?? i}`, start: s.start, end: s.end, speaker }
  })
}

/** The label map of the JSON export: every original speaker → the name it reads as after edits. */
export function labelMap(all: readonly string[], edits: LabelEdits): Record<string, string> {
  return Object.fromEntries(all.map((id) => [id, nameOf(edits, resolveSpeaker(edits, id))]))
}

/**
 * The regions worth drawing for the time window [from, to] when at most `budget` fit: the spans in the window as they
 * are when there are few enough, otherwise coalesced into `budget` equal bins, each showing the speaker who talks
 * most in it, with neighbouring bins of one speaker joined. A 2-hour recording seen whole then gets a few hundred
 * regions instead of ten thousand sub-pixel ones; zoomed in, every span is its own region again. `regions` must be
 * sorted by start.
 */
export function regionsInView(
  regions: readonly SpeakerRegion[],
  from: number,
  to: number,
  budget: number,
): SpeakerRegion[] {
  const inView = regions.filter((r) => r.end > from && r.start < to)
  if (inView.length <= budget) return inView
  const bins = Math.max(1, Math.floor(budget))
  const width = (to - from) / bins
  const talk: Array<Map<string | null, number>> = Array.from({ length: bins }, () => new Map())
  for (const r of inView) {
    const first = Math.max(0, Math.floor((r.start - from) / width))
    const last = Math.min(bins - 1, Math.floor((r.end - from) / width))
    for (let b = first; b <= last; b++) {
      const o = Math.min(r.end, from + (b + 1) * width) - Math.max(r.start, from + b * width)
      if (o > 0) talk[b]?.set(r.speaker, (talk[b]?.get(r.speaker) ?? 0) + o)
    }
  }
  const out: SpeakerRegion[] = []
  for (let b = 0; b < bins; b++) {
    let best: string | null = null
    let most = 0
    for (const [speaker, seconds] of talk[b] ?? []) {
      if (seconds > most) {
        best = speaker
        most = seconds
      }
    }
    if (most === 0) continue
    const start = from + b * width
    const previous = out.at(-1)
    if (previous && previous.speaker === best && Math.abs(previous.end - start) < width / 1000)
      previous.end = start + width
    else out.push({ id: `bin-${b}-${start.toFixed(3)}`, start, end: start + width, speaker: best })
  }
  return out
}
