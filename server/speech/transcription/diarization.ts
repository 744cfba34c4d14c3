import type { DiarizationBlock, DiarizationTurn, TranscriptionWarning } from '../../../schema/index.ts'

/**
 * The upload's `diarization` block (contract 4.12, 7): the diarizer's spans as labelled segments, and speaker turns
 * carrying the transcript text. Pure functions over constructed inputs; the route feeds them the engines' output.
 */

/** A stretch of transcript text with its time in seconds (a transcript segment). */
export interface TimedText {
  start: number
  end: number
  text: string
}

/** A diarizer span: who spoke from `start` to `end` seconds. */
export interface SpeakerSpanInput {
  start: number
  end: number
  speaker: number
}

export interface DiarizationResult {
  diarization: DiarizationBlock
  warnings: TranscriptionWarning[]
}

export const speakerLabel = (n: number) => `speaker_${n}`
const ms = (seconds: number) => Math.round(seconds * 1000) / 1000

export const WARNING_MESSAGES = {
  diarization_failed: 'Speaker attribution could not run; the transcript is complete without it.',
  diarization_text_unavailable:
    'Speaker segments were found, but no transcript text could be matched to them; turns are omitted.',
} as const

/** The block when the diarizer could not run (contract 3): empty speakers and segments, no turns, a warning. */
export function failedDiarization(): DiarizationResult {
  return {
    diarization: { status: 'failed', speakers: [], segments: [] },
    warnings: [{ code: 'diarization_failed', message: WARNING_MESSAGES.diarization_failed }],
  }
}

interface Turn {
  speaker: number
  start: number
  end: number
  texts: string[]
}

/** How much of [a0, a1] lies in [b0, b1]; a zero-length stretch counts as a tiny overlap when it lies inside. */
function overlap(a0: number, a1: number, b0: number, b1: number): number {
  if (a1 <= a0) return a0 >= b0 && a0 <= b1 ? Number.MIN_VALUE : 0
  return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0))
}

/**
 * Builds the completed block.
 *
 * - `segments`: every usable span (positive length, finite times), sorted by start, numbered from 0, speakers relabelled
 *   `speaker_0`, `speaker_1`, … in order of first appearance.
 * - Speaker turns: who holds the floor (floorTurns), consecutive stretches of one speaker merged (a turn covers its
 *   first stretch's start to its last one's end). Where two people talk at once, both keep their segments, and the
 *   turn stays with the one already speaking.
 * - Each transcript segment goes wholly to the turn it overlaps most (the earlier turn on a tie): no text is duplicated
 *   or lost. Turns that receive no text are left out, and turns of one speaker that become neighbours are merged.
 * - Segments that overlap no turn form one trailing entry with `speaker`, `start` and `end` null.
 * - `turns` is left out, with the warning `diarization_text_unavailable`, when no transcript text matched any turn
 *   although there was text or there were spans; with neither (silence) it is an empty list.
 */
export function buildDiarization(
  transcript: readonly TimedText[],
  spans: readonly SpeakerSpanInput[],
): DiarizationResult {
  const usable = spans
    .filter((s) => Number.isFinite(s.start) && Number.isFinite(s.end) && s.end > s.start)
    .map((s) => ({ ...s }))
    .sort((a, b) => a.start - b.start || a.end - b.end)
  const labels = new Map<number, number>()
  for (const s of usable) if (!labels.has(s.speaker)) labels.set(s.speaker, labels.size)
  const speakerOf = (s: SpeakerSpanInput) => labels.get(s.speaker) as number

  const segments = usable.map((s, id) => ({
    id,
    start: ms(s.start),
    end: ms(s.end),
    speaker: speakerLabel(speakerOf(s)),
  }))
  const speakers = [...labels.values()].map(speakerLabel)

  const turns: Turn[] = floorTurns(usable.map((s) => ({ ...s, speaker: speakerOf(s) }))).map((t) => ({
    ...t,
    texts: [],
  }))

  const texts = transcript.filter((t) => t.text.trim().length > 0)
  const unmatched: string[] = []
  let matched = 0
  for (const t of texts) {
    let best: Turn | undefined
    let bestOverlap = 0
    for (const turn of turns) {
      const o = overlap(t.start, t.end, turn.start, turn.end)
      if (o > bestOverlap) {
        best = turn
        bestOverlap = o
      }
    }
    if (best) {
      best.texts.push(t.text.trim())
      matched++
    } else unmatched.push(t.text.trim())
  }

  const diarization: DiarizationBlock = { status: 'completed', speakers, segments }
  if (matched === 0 && (texts.length > 0 || usable.length > 0)) {
    return {
      diarization,
      warnings: [
        { code: 'diarization_text_unavailable', message: WARNING_MESSAGES.diarization_text_unavailable },
      ],
    }
  }
  const merged: Turn[] = []
  for (const turn of turns) {
    if (turn.texts.length === 0) continue
    const last = merged.at(-1)
    if (last && last.speaker === turn.speaker) {
      last.end = Math.max(last.end, turn.end)
      last.texts.push(...turn.texts)
    } else merged.push({ ...turn, texts: [...turn.texts] })
  }
  const out: DiarizationTurn[] = merged.map((t) => ({
    speaker: speakerLabel(t.speaker),
    start: ms(t.start),
    end: ms(t.end),
    text: t.texts.join(' '),
  }))
  if (unmatched.length > 0) out.push({ speaker: null, start: null, end: null, text: unmatched.join(' ') })
  diarization.turns = out
  return { diarization, warnings: [] }
}

/**
 * One speaker at a time from spans that may overlap: the floor stays with the speaker holding it while they talk;
 * when they stop, it passes to whoever is still talking (the one whose span ends last), or to the next to start.
 * Returns the floor's stretches in time order, neighbours of one speaker merged across pauses.
 */
export function floorTurns(
  spans: readonly SpeakerSpanInput[],
): { speaker: number; start: number; end: number }[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - b.end)
  const turns: { speaker: number; start: number; end: number }[] = []
  let holder: SpeakerSpanInput | null = null
  let talking: SpeakerSpanInput[] = []
  const hold = (span: SpeakerSpanInput, from: number) => {
    const last = turns.at(-1)
    if (last && last.speaker === span.speaker) last.end = Math.max(last.end, span.end)
    else turns.push({ speaker: span.speaker, start: from, end: span.end })
    holder = span
  }
  /** The holder's span ends before `time`: the floor passes on at each end until someone talks past `time`. */
  const handOn = (time: number) => {
    while (holder && holder.end < time) {
      const ended: number = holder.end
      talking = talking.filter((o) => o.end > ended)
      const next = talking.reduce<SpeakerSpanInput | null>((a, b) => (!a || b.end > a.end ? b : a), null)
      holder = null
      if (next) hold(next, ended)
    }
  }
  for (const span of sorted) {
    handOn(span.start)
    talking.push(span)
    if (!holder || (holder as SpeakerSpanInput).speaker === span.speaker) hold(span, span.start)
  }
  handOn(Number.POSITIVE_INFINITY)
  return turns
}
