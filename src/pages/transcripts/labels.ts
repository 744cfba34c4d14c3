import type { CueWord } from '../../../core/subtitle-cues.ts'
import {
  type LabelEdits,
  MAX_SPLITS_PER_TURN,
  type StoredResult,
  type TurnSplit,
} from '../../../schema/index.ts'
import { entryWords } from './cue-words.ts'
import { attributeSpans, type Entry, type ReviewWord } from './turns.ts'

/**
 * Reviewers' label edits over a transcript: rename a speaker, merge one speaker into another, give a turn to another
 * speaker (or to nobody), split a turn at a point in time and give the part after it to another (or a new) speaker.
 * Edits are data beside the service's result, which is never changed. Pure functions; every edit returns a new
 * object, so undo is keeping the previous ones.
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

type EntryRef = Pick<Entry, 'index' | 'speaker' | 'part'>

/**
 * The speaker an entry shows after edits, through merges: for the part after a split point, that point's speaker;
 * otherwise the turn's reassignment if any, else its own.
 */
export function speakerOf(edits: LabelEdits, entry: EntryRef): string | null {
  const key = String(entry.index)
  const part = entry.part ?? 0
  if (part > 0) {
    const point = edits.splits?.[key]?.[part - 1]
    return resolveSpeaker(edits, point ? point.speaker : entry.speaker)
  }
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

/**
 * The original speakers, then the ones reviewers added (ids the result never had, that edits give turns or parts to
 * or merge), in the order the edits mention them. Colours follow this order.
 */
export function allSpeakers(original: readonly string[], edits: LabelEdits): string[] {
  const ids = new Set(original)
  for (const id of Object.values(edits.turns)) if (id !== null) ids.add(id)
  for (const points of Object.values(edits.splits ?? {}))
    for (const p of points) if (p.speaker !== null) ids.add(p.speaker)
  for (const [from, into] of Object.entries(edits.merges)) {
    if (ids.has(from) || ids.has(into)) ids.add(into)
  }
  return [...ids]
}

/**
 * An id for a speaker the reviewer adds: the service's pattern (`speaker_N`) with the first N that neither the result
 * nor any edit uses (a named speaker whose turns were given back keeps its id, so a new one never inherits its name).
 */
export function newSpeakerId(all: readonly string[], edits: LabelEdits): string {
  const taken = new Set([...all, ...Object.keys(edits.names), ...Object.keys(edits.merges)])
  let n = 0
  while (taken.has(`speaker_${n}`)) n++
  return `speaker_${n}`
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
export function reassign(edits: LabelEdits, entry: EntryRef, speaker: string | null): LabelEdits {
  const key = String(entry.index)
  const part = entry.part ?? 0
  if (part > 0) {
    const points = edits.splits?.[key]
    const point = points?.[part - 1]
    if (!points || !point || point.speaker === speaker) return edits
    const next = points.map((p, i) => (i === part - 1 ? { ...p, speaker } : p))
    return { ...edits, splits: { ...edits.splits, [key]: next } }
  }
  const turns = { ...edits.turns }
  delete turns[key]
  const withoutIt = { ...edits, turns }
  if (speakerOf(withoutIt, entry) === resolveSpeaker(edits, speaker)) return withoutIt
  return { ...edits, turns: { ...turns, [key]: speaker } }
}

export function hasEdits(edits: LabelEdits): boolean {
  return (
    Object.keys(edits.names).length +
      Object.keys(edits.merges).length +
      Object.keys(edits.turns).length +
      Object.keys(edits.splits ?? {}).length +
      Object.keys(edits.texts ?? {}).length >
    0
  )
}

/** The shortest part a split may leave on either side, in seconds. */
export const MIN_PART_SECONDS = 0.2

/**
 * Whether `entry` (a timed row: a turn or a part of one) can be split at `at`: both sides at least
 * MIN_PART_SECONDS long, and the turn holding fewer than MAX_SPLITS_PER_TURN points.
 */
export function canSplit(
  edits: LabelEdits,
  entry: Pick<Entry, 'index' | 'start' | 'end'>,
  at: number,
): boolean {
  if (entry.start === null || entry.end === null || !Number.isFinite(at)) return false
  if (at < entry.start + MIN_PART_SECONDS || at > entry.end - MIN_PART_SECONDS) return false
  return (edits.splits?.[String(entry.index)]?.length ?? 0) < MAX_SPLITS_PER_TURN
}

/**
 * Splits the turn `entry` belongs to at `at` (seconds, rounded to milliseconds): the part from `at` to the next split
 * point (or the turn's end) goes to `speaker` (null: unattributed); every other part keeps its speaker. Unchanged
 * when the split is not possible here (canSplit).
 */
export function split(
  edits: LabelEdits,
  entry: Pick<Entry, 'index' | 'start' | 'end'>,
  at: number,
  speaker: string | null,
): LabelEdits {
  if (!canSplit(edits, entry, at)) return edits
  const key = String(entry.index)
  const point: TurnSplit = { at: Math.round(at * 1000) / 1000, speaker }
  const points = [...(edits.splits?.[key] ?? []), point].sort((a, b) => a.at - b.at)
  return { ...edits, splits: { ...edits.splits, [key]: points } }
}

/**
 * Joins part `entry` (a part after a split point) back to the part before it, which it then reads as. Unchanged for
 * a row that is not such a part. `splits` is left out again once no turn is split.
 */
export function unsplit(edits: LabelEdits, entry: Pick<Entry, 'index' | 'part'>): LabelEdits {
  const key = String(entry.index)
  const part = entry.part ?? 0
  const points = edits.splits?.[key]
  if (part < 1 || !points || part > points.length) return edits
  const { [key]: _, ...others } = edits.splits ?? {}
  const left = points.filter((_p, i) => i !== part - 1)
  const splits = left.length > 0 ? { ...others, [key]: left } : others
  const { splits: _old, ...rest } = edits
  return Object.keys(splits).length > 0 ? { ...rest, splits } : rest
}

/** Split-control choices besides the speakers: a speaker added by the split, and nobody. */
export const NEW_SPEAKER = '@new'
export const UNATTRIBUTED_CHOICE = '@nobody'

/**
 * Whom the part after a split of `row` may go to, the likeliest first: the other standing speakers (the machine's
 * usual mistake is giving two people's words to one), then a new speaker, then nobody (when the row has a speaker).
 */
export function splitTargets(
  speakers: readonly string[],
  edits: LabelEdits,
  row: EntryRef,
): Array<{ value: string; label: string }> {
  const shown = speakerOf(edits, row)
  return [
    ...currentSpeakers(speakers, edits)
      .filter((id) => id !== shown)
      .map((id) => ({ value: id, label: nameOf(edits, id) })),
    { value: NEW_SPEAKER, label: 'A new speaker' },
    ...(shown === null ? [] : [{ value: UNATTRIBUTED_CHOICE, label: UNATTRIBUTED }]),
  ]
}

/** The choice in effect: `wanted` when it is offered, else the first one offered. */
export function chosenTarget(targets: ReadonlyArray<{ value: string }>, wanted: string | null): string {
  return targets.some((t) => t.value === wanted) ? (wanted as string) : (targets[0]?.value ?? NEW_SPEAKER)
}

/**
 * The review's rows: the service's entries, with each turn a reviewer split cut into its parts at the split points
 * that lie inside it. A part runs from its split point to the next (the turn's own start and end at the edges) and
 * holds the words whose middle falls in it (the turn's own words when it carries them, a corrected turn's, else the
 * result's as the exports find them). Parts keep the
 * turn's `index` and are numbered by their split point's place in the saved list, so edits find them again. Without
 * splits the entries come back as they are.
 */
export function partsOf(entries: readonly Entry[], edits: LabelEdits, words: readonly CueWord[]): Entry[] {
  const splits = edits.splits
  if (!splits || Object.keys(splits).length === 0) return entries as Entry[]
  const out: Entry[] = []
  for (const e of entries) {
    const saved = splits[String(e.index)]
    if (!saved || e.start === null || e.end === null) {
      out.push(e)
      continue
    }
    const { start, end } = e
    const points = saved
      .map((p, i) => ({ ...p, part: i + 1 }))
      .filter((p) => p.at > start && p.at < end)
      .sort((a, b) => a.at - b.at)
    if (points.length === 0) {
      out.push(e)
      continue
    }
    const shares: ReviewWord[][] = points.map(() => [])
    shares.push([])
    for (const w of e.words ?? entryWords(e.text, start, end, words)) {
      const middle = (w.start + w.end) / 2
      let k = 0
      while (k < points.length && (points[k] as { at: number }).at <= middle) k++
      shares[k]?.push(w)
    }
    const textOf = (k: number) => (shares[k] ?? []).map((w) => w.text).join(' ')
    out.push({
      ...e,
      part: 0,
      end: (points[0] as { at: number }).at,
      text: textOf(0),
      words: shares[0] ?? [],
    })
    points.forEach((p, k) => {
      out.push({
        index: e.index,
        part: p.part,
        speaker: p.speaker,
        start: p.at,
        end: k + 1 < points.length ? (points[k + 1] as { at: number }).at : end,
        text: textOf(k + 1),
        words: shares[k + 1] ?? [],
      })
    })
  }
  return out
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
 * overlaps most (a span straddling a turn boundary goes wholly to one side); when that turn was reassigned or split
 * the span follows it, otherwise it keeps its own speaker through merges. A span of another speaker than its turn's
 * that overlaps a span of someone else is that speaker talking at the same time as the turn's (overlapping speech,
 * docs/transcription.md): it keeps its own speaker whatever is done to the turn.
 */
export function regionsOf(
  result: StoredResult,
  entries: readonly Entry[],
  edits: LabelEdits,
): SpeakerRegion[] {
  const spans = (result.diarization?.segments ?? []).filter((s) => s.end > s.start)
  const splits = edits.splits ?? {}
  const edited = Object.keys(edits.turns).length + Object.keys(splits).length > 0
  const owners = edited ? attributeSpans(spans, entries) : []
  const speakerOfEntry = new Map(entries.map((e) => [e.index, e.speaker]))
  const overlapped = edited ? overlappedSpans(spans) : []
  return spans.flatMap((s, i) => {
    const attributed = owners[i]
    const owner =
      attributed !== null &&
      attributed !== undefined &&
      overlapped[i] &&
      speakerOfEntry.get(attributed) !== s.speaker
        ? null
        : attributed
    const key = owner === null || owner === undefined ? null : String(owner)
    const id = `span-${s.id ?? i}`
    const own =
      key !== null && Object.hasOwn(edits.turns, key)
        ? resolveSpeaker(edits, edits.turns[key] ?? null)
        : resolveSpeaker(edits, s.speaker)
    // A span of a split turn is cut at the turn's split points inside it; each piece shows its part's speaker.
    const points = key === null ? [] : [...(splits[key] ?? [])].sort((a, b) => a.at - b.at)
    if (points.length === 0) return [{ id, start: s.start, end: s.end, speaker: own }]
    const pieces: SpeakerRegion[] = []
    let from = s.start
    let speaker = own
    for (const p of points) {
      if (p.at <= s.start) {
        speaker = resolveSpeaker(edits, p.speaker)
        continue
      }
      if (p.at >= s.end) break
      pieces.push({
        id: pieces.length === 0 ? id : `${id}-${pieces.length}`,
        start: from,
        end: p.at,
        speaker,
      })
      from = p.at
      speaker = resolveSpeaker(edits, p.speaker)
    }
    pieces.push({ id: pieces.length === 0 ? id : `${id}-${pieces.length}`, start: from, end: s.end, speaker })
    return pieces
  })
}

/** For each span, whether a span of another speaker overlaps it. Spans may come in any order. */
function overlappedSpans(spans: ReadonlyArray<{ start: number; end: number; speaker: string }>): boolean[] {
  const order = spans.map((_s, i) => i).sort((a, b) => (spans[a]?.start ?? 0) - (spans[b]?.start ?? 0))
  const out = spans.map(() => false)
  for (let p = 0; p < order.length; p++) {
    const a = spans[order[p] as number] as (typeof spans)[number]
    for (let q = p + 1; q < order.length; q++) {
      const b = spans[order[q] as number] as (typeof spans)[number]
      if (b.start >= a.end) break
      if (b.speaker !== a.speaker) {
        out[order[p] as number] = true
        out[order[q] as number] = true
      }
    }
  }
  return out
}

/** The label map of the JSON export: every original speaker → the name it reads as after edits. */
export function labelMap(all: readonly string[], edits: LabelEdits): Record<string, string> {
  return Object.fromEntries(all.map((id) => [id, nameOf(edits, resolveSpeaker(edits, id))]))
}

/**
 * The regions worth drawing for the time window [from, to] when at most `budget` fit: the spans in the window as they
 * are when there are few enough, otherwise coalesced into `budget` equal bins, each showing the speaker who talks
 * most in it, with neighbouring bins of one speaker joined. A 2-hour recording seen whole then gets a few hundred
 * regions instead of ten thousand sub-pixel ones; zoomed in, every span is its own region again. Where someone else
 * talks for half a bin or more too (which only overlapping speech can do), their bin is drawn as well. `regions` must be sorted by start;
 * the answer is in bin order.
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
  /** Each speaker's last bin region, to join the next bin of theirs onto. */
  const last = new Map<string | null, SpeakerRegion>()
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
    // Besides the speaker talking most, anyone else talking for half the bin or more: two people at once stay
    // visible in their own rows of the waveform.
    for (const [speaker, seconds] of talk[b] ?? []) {
      if (speaker !== best && seconds < width * OTHER_SPEAKER_SHARE) continue
      const previous = last.get(speaker)
      if (previous && Math.abs(previous.end - start) < width / 1000) previous.end = start + width
      else {
        const id = `bin-${b}-${start.toFixed(3)}${speaker === best ? '' : `-${speaker}`}`
        const region = { id, start, end: start + width, speaker }
        out.push(region)
        last.set(speaker, region)
      }
    }
  }
  return out
}

/** The share of a coalesced bin that a speaker other than the one talking most must talk to be drawn in it. */
const OTHER_SPEAKER_SHARE = 0.5
