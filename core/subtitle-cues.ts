/**
 * Subtitle cues for SRT and WebVTT, shared by the speech service's `srt` / `vtt` response formats and the studio's
 * exports, so both follow one set of rules (docs/transcription.md, "Subtitles"):
 *
 * - a cue lasts at most 7 s and shows at most two lines of at most 42 characters (the speaker's name, where it is
 *   written into the text, counts); only a single word longer than a line may make its line longer;
 * - cues are cut at word boundaries using the words' times, preferably at the longest pause or after a sentence's end
 *   in the second half of what would fit, and always at a pause of 1 s or more;
 * - a cue shows at least 1 s when the next cue leaves room; every word appears once, in order.
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
}

export const SUBTITLE_LIMITS: Readonly<CueLimits> = {
  maxSeconds: 7,
  maxLines: 2,
  maxLineChars: 42,
  maxPauseSeconds: 1,
  minSeconds: 1,
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

/** Sorts cues by start and holds each short one on screen up to `minSeconds`, never into the next cue. */
export function finishCues(cues: readonly SubtitleCue[], limits: Partial<CueLimits> = {}): SubtitleCue[] {
  const { minSeconds, maxSeconds } = { ...SUBTITLE_LIMITS, ...limits }
  const sorted = cues.map((c) => ({ ...c })).sort((a, b) => a.start - b.start || a.end - b.end)
  sorted.forEach((c, k) => {
    if (c.end - c.start >= minSeconds) return
    const next = sorted[k + 1]
    const room = next ? next.start : Number.POSITIVE_INFINITY
    c.end = Math.max(c.end, Math.min(c.start + minSeconds, room, c.start + maxSeconds))
  })
  return sorted
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

/**
 * The words as at most `maxLines` lines of at most `max` characters, the prefix starting the first: one line when it
 * fits, else two lines as even as possible (the break that makes the longer line shortest), else line by line.
 */
function layout(words: readonly string[], prefix: string, max: number, maxLines: number): string[] {
  const one = prefix + words.join(' ')
  if (one.length <= max || words.length === 1 || maxLines === 1) return [one]
  if (maxLines >= 2) {
    let best: string[] | undefined
    let bestLongest = Number.POSITIVE_INFINITY
    for (let k = 1; k < words.length; k++) {
      const a = prefix + words.slice(0, k).join(' ')
      const b = words.slice(k).join(' ')
      const longest = Math.max(a.length, b.length)
      if (longest <= max && longest < bestLongest) {
        best = [a, b]
        bestLongest = longest
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
