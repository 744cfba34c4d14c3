/**
 * `npm run bench:subtitles`: how many subtitle cues break the reviewers' rules (core/subtitle-cues.ts) on real
 * meetings, with the reading-speed and gap rules of finishCues off and on, side by side. Words are PocketSphinx's on
 * the first `SUBTITLE_SECONDS` (default 60) of each scored excerpt in shared/data/diarization, each given to the
 * reference speaker talking at its middle; a speaker's consecutive words make a turn, cut into cues as the SRT export
 * does (the speaker's name written into the first line).
 *
 * Smoke mode (`--smoke`): one excerpt, 10 s.
 */
import {
  type CueLimits,
  type CueRule,
  checkCues,
  finishCues,
  type SubtitleCue,
  speakerPrefix,
  splitCues,
} from '../core/subtitle-cues.ts'
import { createPocketSphinxRecognizer, type RecognizedWord } from '../server/engine/recognition/index.ts'
import { loadMeetings, type Meeting } from './eval-diarization.ts'
import { announceSmoke, count } from './smoke.ts'

announceSmoke('bench:subtitles')
const RATE = 16_000
const files = count(10, 1, 'SUBTITLE_FILES')
const seconds = count(60, 10, 'SUBTITLE_SECONDS')

/** The reference speaker talking at `t` (the longest turn among several), or null in silence. */
function speakerAt(m: Meeting, t: number): string | null {
  let best: { speaker: string; length: number } | null = null
  for (const turn of m.turns)
    if (turn.start <= t && t < turn.end && (!best || turn.end - turn.start > best.length))
      best = { speaker: turn.speaker, length: turn.end - turn.start }
  return best?.speaker ?? null
}

/** A speaker's consecutive words as turns: one speaker each, as the reviewer's page shows them. */
function turnsOf(
  m: Meeting,
  words: readonly RecognizedWord[],
): Array<{ speaker: string; words: RecognizedWord[] }> {
  const turns: Array<{ speaker: string; words: RecognizedWord[] }> = []
  for (const w of words) {
    const speaker = speakerAt(m, (w.start + w.end) / 2) ?? turns.at(-1)?.speaker ?? 'unknown'
    const last = turns.at(-1)
    if (last && last.speaker === speaker) last.words.push(w)
    else turns.push({ speaker, words: [w] })
  }
  return turns
}

const RULES: CueRule[] = ['short', 'speed', 'gap', 'long', 'lines', 'line-length']
const TIMING_OFF: Partial<CueLimits> = { maxCharsPerSecond: Number.POSITIVE_INFINITY, minGapSeconds: 0 }
const CLINGING_END = /\b(a|an|the|to|of|in|on|at|by|for|from|with|and|or|but)$/i

const recognizer = createPocketSphinxRecognizer()
const meetings = (await loadMeetings()).slice(0, files)
const raw: SubtitleCue[][] = []
let wordCount = 0
for (const m of meetings) {
  const from = Math.floor(m.scored.from * RATE)
  const audio = m.audio.subarray(from, Math.min(m.audio.length, from + seconds * RATE))
  const { words } = await recognizer.transcribe(audio)
  const shifted = words.map((w) => ({ ...w, start: w.start + m.scored.from, end: w.end + m.scored.from }))
  wordCount += shifted.length
  raw.push(
    turnsOf(m, shifted).flatMap((t) =>
      splitCues(
        t.words.map((w) => ({ text: w.text, start: w.start, end: w.end })),
        { prefix: speakerPrefix(t.speaker) },
      ),
    ),
  )
}
await recognizer.close()

function tally(limits: Partial<CueLimits>) {
  const counts = new Map<CueRule, number>(RULES.map((r) => [r, 0]))
  let cues = 0
  let flagged = 0
  for (const file of raw) {
    const finished = finishCues(file, limits)
    cues += finished.length
    for (const problems of checkCues(finished)) {
      if (problems.length > 0) flagged++
      for (const rule of new Set(problems.map((p) => p.rule))) counts.set(rule, (counts.get(rule) ?? 0) + 1)
    }
  }
  return { cues, flagged, counts }
}

const off = tally(TIMING_OFF)
const on = tally({})
const pct = (n: number, of: number) => `${n} (${of ? ((100 * n) / of).toFixed(1) : '0.0'} %)`
console.log(
  `subtitle cues on ${meetings.length} meeting excerpts, first ${seconds} s each: ${wordCount} recognized words, ${on.cues} cues`,
)
console.log('rule broken                      timing rules off     timing rules on')
const row = (label: string, a: number, b: number) =>
  console.log(`${label.padEnd(32)} ${pct(a, off.cues).padEnd(20)} ${pct(b, on.cues)}`)
row('any rule', off.flagged, on.flagged)
const labels: Record<CueRule, string> = {
  short: 'shown under 1 s',
  speed: 'over 17 characters a second',
  gap: 'under 80 ms before the next',
  long: 'over 7 s',
  lines: 'over 2 lines',
  'line-length': 'a line over 42 characters',
}
for (const rule of RULES) row(labels[rule], off.counts.get(rule) ?? 0, on.counts.get(rule) ?? 0)
const twoLine = raw.flat().filter((c) => c.lines.length === 2)
const clinging = twoLine.filter((c) => CLINGING_END.test(c.lines[0] ?? '')).length
console.log(
  `two-line cues whose first line ends on an article, preposition or conjunction: ${pct(clinging, twoLine.length)} of ${twoLine.length}`,
)
