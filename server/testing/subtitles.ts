import { expect } from 'vitest'

/**
 * Test helpers for the subtitle limits (core/subtitle-cues.ts): a fixed-seed generator of random word sequences,
 * readers of SRT and WebVTT back into cues as a viewer would see them, and the checks every export must pass.
 */

export interface RandomWord {
  text: string
  start: number
  end: number
}

/** The project's one seeded PRNG, so that every run sees the same "random" cases. */
export { mulberry32 as prng } from '../engine/markup/dsp.ts'

const LETTERS = 'abcdefghijklmnopqrstuvwxyz'

/**
 * Words in time order: mostly 1–12 letters, now and then a word longer than a line, punctuation or markup characters
 * (`&`, `<`, `>`, `-->`); pauses from none to 2.5 s; now and then a word lasting longer than a cue.
 */
export function randomWords(random: () => number, count: number, from = 0): RandomWord[] {
  const words: RandomWord[] = []
  let t = from + random() * 2
  for (let i = 0; i < count; i++) {
    const r = random()
    const length = r < 0.03 ? 43 + Math.floor(random() * 20) : 1 + Math.floor(random() * 12)
    let text = ''
    for (let k = 0; k < length; k++) text += LETTERS[Math.floor(random() * LETTERS.length)]
    const mark = random()
    if (mark < 0.05) text += '.'
    else if (mark < 0.08) text += ','
    else if (mark < 0.1) text = `<${text}>`
    else if (mark < 0.11) text = `${text}&co`
    else if (mark < 0.12) text = '-->'
    const duration = random() < 0.01 ? 7 + random() * 5 : 0.05 + random() * 1.1
    words.push({ text, start: t, end: t + duration })
    const gap = random()
    t += duration + (gap < 0.5 ? 0 : gap < 0.85 ? random() * 0.4 : random() * 2.5)
  }
  return words
}

export interface ReadCue {
  start: number
  end: number
  /** The lines a viewer sees: WebVTT tags removed and entities decoded. */
  lines: string[]
  /** WebVTT voice, when the cue has one. */
  voice: string | null
}

function seconds(stamp: string): number {
  const [h, m, s] = stamp.trim().replace(',', '.').split(':').map(Number)
  return (h as number) * 3600 + (m as number) * 60 + (s as number)
}

/** SRT back into cues (numbered blocks separated by blank lines). */
export function readSrt(srt: string): ReadCue[] {
  if (!srt.trim()) return []
  return srt
    .trim()
    .split(/\n\n/)
    .map((block, i) => {
      const [number, times, ...lines] = block.split('\n')
      expect(number).toBe(String(i + 1))
      const [from, to] = (times as string).split(' --> ') as [string, string]
      return { start: seconds(from), end: seconds(to), lines, voice: null }
    })
}

const decode = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')

/** WebVTT back into cues: header, then blocks of a timing line and text. */
export function readVtt(vtt: string): ReadCue[] {
  const [header, ...blocks] = vtt.split(/\n\n/)
  expect(header?.trim()).toBe('WEBVTT')
  return blocks
    .filter((b) => b.trim())
    .map((block) => {
      const [times, ...raw] = block.trimEnd().split('\n')
      const [from, to] = (times as string).split(' --> ') as [string, string]
      const text = raw.join('\n')
      // Cue text must not hold a timing arrow or a raw `<` that is not a tag we wrote.
      expect(text).not.toContain('-->')
      const voice = /^<v ([^>]*)>/.exec(text)?.[1]
      const visible = text.replace(/^<v [^>]*>/, '').replace(/<\/v>$/, '')
      expect(visible).not.toMatch(/[<>]/)
      return {
        start: seconds(from),
        end: seconds(to),
        lines: visible.split('\n').map(decode),
        voice: voice === undefined ? null : decode(voice),
      }
    })
}

export interface LimitOptions {
  maxSeconds?: number
  maxLines?: number
  maxLineChars?: number
  /** Each cue's first line starts with one of these (the speaker prefix), removed before comparing words. */
  prefixes?: readonly string[]
}

/**
 * The limits every subtitle export must keep, and no word lost, added or reordered: each cue at most 7 s (to the
 * millisecond the formats write) and longer than nothing, starts in order, at most two lines of at most 42
 * characters except a line holding a single word (after the speaker prefix) longer than that.
 * @returns the words read back, in order
 */
export function expectCueLimits(cues: readonly ReadCue[], opts: LimitOptions = {}): string[] {
  const maxSeconds = opts.maxSeconds ?? 7
  const maxLines = opts.maxLines ?? 2
  const maxChars = opts.maxLineChars ?? 42
  const words: string[] = []
  let previousStart = Number.NEGATIVE_INFINITY
  for (const cue of cues) {
    expect(cue.end - cue.start).toBeLessThanOrEqual(maxSeconds + 1e-9)
    expect(cue.end).toBeGreaterThan(cue.start)
    expect(cue.start).toBeGreaterThanOrEqual(previousStart)
    previousStart = cue.start
    expect(cue.lines.length).toBeGreaterThanOrEqual(1)
    expect(cue.lines.length).toBeLessThanOrEqual(maxLines)
    cue.lines.forEach((line, i) => {
      const prefix = i === 0 ? (opts.prefixes ?? []).find((p) => line.startsWith(p)) : undefined
      const body = prefix ? line.slice(prefix.length) : line
      if (line.length > maxChars) expect(body, `line ${JSON.stringify(line)}`).not.toContain(' ')
      words.push(...body.split(' ').filter(Boolean))
    })
  }
  return words
}
