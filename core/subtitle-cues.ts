/**
 * Subtitle cues for SRT and WebVTT, shared by the speech service's `srt` / `vtt` response formats and the studio's
 * exports, so both follow one set of rules (docs/transcription.md, "Subtitles"):
 *
 * - a cue lasts at most 7 s and shows at most two lines of at most 42 characters (the speaker's name, where it is
 *   written into the text, counts); only a single word longer than a line may make its line longer;
 * - cues are cut at word boundaries using the words' times, preferably at the longest pause or after a sentence's end
 *   in the second half of what would fit, and always at a pause of 1 s or more;
 * - two lines break where a phrase does (after a sentence's end or a comma, before a conjunction, never after an
 *   article or a preposition) among the breaks that keep both lines within the limit;
 * - a cue shows at least 1 s, and long enough to read at 17 characters per second, when the pause before the next cue
 *   leaves room; cues in sequence are at least 80 ms apart; every word appears once, in order.
 *
 * `checkCues` says which cues still break a rule (the speech too fast to read, two people at once) and why.
 *
 * Pure functions, no imports: the browser and the server run the same code.
 */

export interface CueLimits {
  /** Longest cue (seconds). */
  maxSeconds: number
  maxLines: number
  /** Longest line in characters, the speaker prefix included. */
  maxLineChars: number
  /** A pause between two words at least this long (seconds) always ends a cue. */
  maxPauseSeconds: number
  /** A shorter cue is held on screen up to this long (seconds) when the next cue starts later. */
  minSeconds: number
  /** Reading speed: a cue is held until its characters can be read at this rate, where the next cue allows. */
  maxCharsPerSecond: number
  /** The least gap between a cue and the next (seconds), so that a viewer sees the change. */
  minGapSeconds: number
}

export const SUBTITLE_LIMITS: Readonly<CueLimits> = {
  maxSeconds: 7,
  maxLines: 2,
  maxLineChars: 42,
  maxPauseSeconds: 1,
  minSeconds: 1,
  maxCharsPerSecond: 17,
  minGapSeconds: 0.08,
}

/** A word with its time in seconds. */
export interface CueWord {
  text: string
  start: number
  end: number
}

export interface SubtitleCue {
  start: number
  end: number
  /** The lines shown, the first one starting with the prefix when one was given. */
  lines: string[]
  /** The speaker's name for a WebVTT voice span; null or absent for none. */
  voice?: string | null
}

export interface SplitOptions extends Partial<CueLimits> {
  /** Written at the start of every cue's first line and counted in its length (such as `Anna: `). */
  prefix?: string
  /** The cue's speaker for WebVTT's voice span (not counted: players show it apart from the lines, if at all). */
  voice?: string | null
}

/** Longest speaker name written into a line; longer names are shortened with an ellipsis. */
export const MAX_PREFIX_NAME = 20

/** `Name: ` for the start of a cue's first line, the name shortened to `MAX_PREFIX_NAME` characters. */
export function speakerPrefix(name: string): string {
  const clean = name.replace(/\s+/g, ' ').trim()
  const short = clean.length > MAX_PREFIX_NAME ? `${clean.slice(0, MAX_PREFIX_NAME - 1)}…` : clean
  return short ? `${short}: ` : ''
}

/**
 * Cuts one speaker's words (in time order) into cues within the limits. Times are made non-decreasing first (a word
 * never starts before the previous one, nor ends before it starts); empty words are left out.
 */
export function splitCues(words: readonly CueWord[], opts: SplitOptions = {}): SubtitleCue[] {
  const limits = { ...SUBTITLE_LIMITS, ...opts }
  const prefix = opts.prefix ?? ''
  const ws = tidy(words)
  const cues: SubtitleCue[] = []
  let i = 0
  let previousEnd = Number.NEGATIVE_INFINITY
  while (i < ws.length) {
    const first = ws[i] as CueWord
    // The last word the cue could take.
    let last = i
    let ended = false
    while (last + 1 < ws.length) {
      const next = ws[last + 1] as CueWord
      const pause = next.start - (ws[last] as CueWord).end
      if (pause >= limits.maxPauseSeconds) {
        ended = true
        break
      }
      if (next.end - first.start > limits.maxSeconds) break
      if (lineCount(ws, i, last + 1, prefix, limits.maxLineChars) > limits.maxLines) break
      last++
    }
    if (!ended && last + 1 < ws.length) last = bestBreak(ws, i, last)
    const start = Math.max(first.start, previousEnd)
    let end = Math.min((ws[last] as CueWord).end, start + limits.maxSeconds)
    if (end <= start) end = start + 0.001
    cues.push({
      start,
      end,
      lines: layout(
        ws.slice(i, last + 1).map((w) => w.text),
        prefix,
        limits.maxLineChars,
        limits.maxLines,
      ),
      ...(opts.voice !== undefined ? { voice: opts.voice } : {}),
    })
    previousEnd = end
    i = last + 1
  }
  return cues
}

/**
 * Words for a text with no word times: its whitespace-separated words spread over `[start, end]` in proportion to
 * their length (a space counting as one character).
 */
export function wordsOverSpan(text: string, start: number, end: number): CueWord[] {
  const tokens = text.split(/\s+/).filter(Boolean)
  const total = tokens.reduce((sum, t) => sum + t.length + 1, -1)
  const span = Math.max(0, end - start)
  let at = 0
  return tokens.map((t) => {
    const w = { text: t, start: start + (span * at) / total, end: start + (span * (at + t.length)) / total }
    at += t.length + 1
    return w
  })
}

/**
 * Characters a viewer reads in a cue (spaces and the speaker prefix included, line breaks as one space). */
export const cueCharacters = (cue: Pick<SubtitleCue, 'lines'>) => cue.lines.join(' ').length

/**
 * Sorts cues by start, then holds each one on screen until it has shown `minSeconds` and can be read at
 * `maxCharsPerSecond`, as far as `minGapSeconds` before the next cue allows and never past `maxSeconds`; a cue ending
 * less than `minGapSeconds` before the next starts is ended earlier by as much. A cue overlapping the next by more
 * than that (two people at once) is left as it is.
 */
export function finishCues(cues: readonly SubtitleCue[], limits: Partial<CueLimits> = {}): SubtitleCue[] {
  const { minSeconds, maxSeconds, maxCharsPerSecond, minGapSeconds } = { ...SUBTITLE_LIMITS, ...limits }
  const sorted = cues.map((c) => ({ ...c })).sort((a, b) => a.start - b.start || a.end - b.end)
  sorted.forEach((c, k) => {
    const next = sorted[k + 1]
    const room = next ? next.start - minGapSeconds : Number.POSITIVE_INFINITY
    if (c.end > room) {
      // Within the gap: end a little earlier. Further in, the next cue is someone else speaking meanwhile.
      if (c.end - room <= minGapSeconds + 1e-9 && room > c.start) c.end = room
      return
    }
    const wanted = Math.max(minSeconds, cueCharacters(c) / maxCharsPerSecond)
    c.end = Math.max(c.end, Math.min(c.start + wanted, room, c.start + maxSeconds))
  })
  return sorted
}

export type CueRule = 'lines' | 'line-length' | 'short' | 'long' | 'speed' | 'gap'

/** A rule a cue breaks: what it has (`value`: lines, characters, seconds or characters per second) and the limit. */
export interface CueProblem {
  rule: CueRule
  value: number
  limit: number
  /** For `line-length`, which line (from 1). */
  line?: number
}

/**
 * The rules each cue (in the order given, sorted by start) still breaks; an empty list for a cue that keeps them all.
 * `gap` is the gap to the next cue (negative when they overlap).
 */
export function checkCues(cues: readonly SubtitleCue[], limits: Partial<CueLimits> = {}): CueProblem[][] {
  const l = { ...SUBTITLE_LIMITS, ...limits }
  // A hundredth of the unit spares values rounded to the millisecond.
  const slack = 1e-3
  return cues.map((c, k) => {
    const problems: CueProblem[] = []
    const seconds = c.end - c.start
    if (c.lines.length > l.maxLines)
      problems.push({ rule: 'lines', value: c.lines.length, limit: l.maxLines })
    c.lines.forEach((line, i) => {
      // A word longer than a line cannot be broken; only that is allowed past the limit.
      if (line.length > l.maxLineChars && !line.split(' ').some((word) => word.length > l.maxLineChars))
        problems.push({ rule: 'line-length', value: line.length, limit: l.maxLineChars, line: i + 1 })
    })
    if (seconds < l.minSeconds - slack) problems.push({ rule: 'short', value: seconds, limit: l.minSeconds })
    if (seconds > l.maxSeconds + slack) problems.push({ rule: 'long', value: seconds, limit: l.maxSeconds })
    const speed = cueCharacters(c) / Math.max(seconds, slack)
    if (speed > l.maxCharsPerSecond + 0.05)
      problems.push({ rule: 'speed', value: speed, limit: l.maxCharsPerSecond })
    const next = cues[k + 1]
    if (next && next.start - c.end < l.minGapSeconds - slack)
      problems.push({ rule: 'gap', value: next.start - c.end, limit: l.minGapSeconds })
    return problems
  })
}

/** `HH:MM:SS,mmm` (SRT) or `HH:MM:SS.mmm` (WebVTT), rounded to the millisecond, never negative. */
export function subtitleTime(seconds: number, separator: ',' | '.'): string {
  const total = Math.max(0, Math.round(seconds * 1000))
  const h = Math.floor(total / 3_600_000)
  const m = Math.floor((total % 3_600_000) / 60_000)
  const s = Math.floor((total % 60_000) / 1000)
  const millis = total % 1000
  const pad = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(millis, 3)}`
}

/** WebVTT cue text: `&`, `<` and `>` escaped (which also breaks any `-->`). */
export function vttEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Numbered SRT cues separated by blank lines; empty when there are none. */
export function renderSrt(cues: readonly SubtitleCue[]): string {
  return cues
    .map(
      (c, i) =>
        `${i + 1}\n${subtitleTime(c.start, ',')} --> ${subtitleTime(c.end, ',')}\n${c.lines.join('\n')}\n`,
    )
    .join('\n')
}

/** `WEBVTT`, then the cues; a cue with a voice wraps its lines in `<v Name>…</v>`. */
export function renderVtt(cues: readonly SubtitleCue[]): string {
  const body = cues.map((c) => {
    const text = c.lines.map(vttEscape).join('\n')
    const shown = c.voice ? `<v ${vttEscape(c.voice.replace(/\s+/g, ' ').trim())}>${text}</v>` : text
    return `${subtitleTime(c.start, '.')} --> ${subtitleTime(c.end, '.')}\n${shown}\n`
  })
  return ['WEBVTT\n', ...body].join('\n')
}

/** Words with whitespace collapsed, empty ones dropped, times finite and non-decreasing. */
function tidy(words: readonly CueWord[]): CueWord[] {
  const out: CueWord[] = []
  let previousStart = 0
  for (const w of words) {
    const text = w.text.replace(/\s+/g, ' ').trim()
    if (!text) continue
    const start =
      out.length === 0 && Number.isFinite(w.start)
        ? w.start
        : Math.max(previousStart, finite(w.start, previousStart))
    const end = Math.max(finite(w.end, start), start)
    out.push({ text, start, end })
    previousStart = start
  }
  return out
}

const finite = (value: number, otherwise: number) => (Number.isFinite(value) ? value : otherwise)

/** Lines that words `from…to` (inclusive) fill when each line takes as many words as fit. */
function lineCount(ws: readonly CueWord[], from: number, to: number, prefix: string, max: number): number {
  let lines = 1
  let length = prefix.length
  let empty = true
  for (let k = from; k <= to; k++) {
    const word = (ws[k] as CueWord).text.length
    if (empty) {
      length += word
      empty = false
    } else if (length + 1 + word <= max) length += 1 + word
    else {
      lines++
      length = word
    }
  }
  return lines
}

/**
 * Where to end a cue that could run from word `from` to word `last`: after the word, in the second half of that
 * stretch, followed by the longest pause, a sentence's end counting as half a second of pause and a comma as 0.2 s;
 * the latest on a tie.
 */
function bestBreak(ws: readonly CueWord[], from: number, last: number): number {
  let best = last
  let bestScore = Number.NEGATIVE_INFINITY
  for (let k = from + Math.floor((last - from) / 2); k <= last; k++) {
    const w = ws[k] as CueWord
    const pause = (ws[k + 1] as CueWord).start - w.end
    const mark = /[.!?…]["')\]]*$/.test(w.text) ? 0.5 : /[,;:]$/.test(w.text) ? 0.2 : 0
    const score = pause + mark
    if (score >= bestScore) {
      best = k
      bestScore = score
    }
  }
  return best
}

/** Words a line should not end on: it would part them from what they introduce. */
const CLINGING = new Set(
  'a an the to of in on at by for from with into onto about as than my your his her its our their this that these those is are was were be been has have had will would can could should i we you he she they and or but nor so if'.split(
    ' ',
  ),
)
/** Words a line may well begin with: they start a phrase. */
const PHRASE_STARTS = new Set(
  'and but or nor so because although though while when where which who that if then after before until unless since'.split(
    ' ',
  ),
)
const bare = (word: string) => word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '')

/**
 * What breaking two lines after `word` (and before `next`) costs, in characters of the longer line: a sentence's end
 * saves 20, a comma 12, a phrase's first word next 4; a clinging word at the line's end costs 10.
 */
function breakCost(word: string, next: string): number {
  if (/[.!?…]["')\]]*$/.test(word)) return -20
  if (/[,;:–—]["')\]]*$/.test(word)) return -12
  if (CLINGING.has(bare(word))) return 10
  if (PHRASE_STARTS.has(bare(next))) return -4
  return 0
}

/**
 * The words as at most `maxLines` lines of at most `max` characters, the prefix starting the first: one line when it
 * fits, else two lines broken where a phrase does and as even as possible (the least longer line plus the break's
 * cost), else line by line.
 */
function layout(words: readonly string[], prefix: string, max: number, maxLines: number): string[] {
  const one = prefix + words.join(' ')
  if (one.length <= max || words.length === 1 || maxLines === 1) return [one]
  if (maxLines >= 2) {
    let best: string[] | undefined
    let bestCost = Number.POSITIVE_INFINITY
    for (let k = 1; k < words.length; k++) {
      const a = prefix + words.slice(0, k).join(' ')
      const b = words.slice(k).join(' ')
      const longest = Math.max(a.length, b.length)
      const cost = longest + breakCost(words[k - 1] as string, words[k] as string)
      if (longest <= max && cost < bestCost) {
        best = [a, b]
        bestCost = cost
      }
    }
    if (best) return best
  }
  const lines: string[] = []
  let line = prefix
  let empty = true
  for (const w of words) {
    if (empty) {
      line += w
      empty = false
    } else if (line.length + 1 + w.length <= max) line += ` ${w}`
    else {
      lines.push(line)
      line = w
    }
  }
  lines.push(line)
  return lines
}
