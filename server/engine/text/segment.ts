/**
 * Cutting text into synthesis segments (contract 2.8 rule 5): one sentence each for plain text (a long one cut into
 * pieces of up to 240 characters), chunks of up to about 530 characters for marked-up text, each with its cap on audio
 * tokens.
 */
import { markupSpans, type Span } from './markup.ts'

export const MAX_SEGMENT_CHARS = 530
/**
 * Plain text is cut into pieces that fit their 30 s budget: read slowest (digits, 120 wpm voices) speech runs at about
 * 10 characters a second, so a 530-character piece could outlast its budget and lose its end.
 */
export const MAX_SENTENCE_CHARS = 240
/** About 25 audio tokens make one second of audio. */
const TOKENS_PER_SECOND = 25
export const SENTENCE_TOKEN_BUDGET = 30 * TOKENS_PER_SECOND
export const MARKUP_CHUNK_TOKEN_BUDGET = 90 * TOKENS_PER_SECOND

export interface Segment {
  text: string
  tokenBudget: number
}

export interface SegmentOptions {
  /** BCP 47 locale for the sentence rules, such as "en-US", "ja" or "zh-CN". */
  locale: string
  /** Whether the text carries inline markup (see `hasMarkup` in schema/markup.ts). */
  markup: boolean
}

const segmenters = new Map<string, Intl.Segmenter>()

/** A malformed tag must not fail a request; ICU's root rules still split sentences well. */
function canonicalLocale(locale: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(locale.replace(/_/g, '-'))[0]
  } catch {
    return undefined
  }
}

function segmenterFor(locale: string): Intl.Segmenter {
  let segmenter = segmenters.get(locale)
  if (!segmenter) {
    segmenter = new Intl.Segmenter(canonicalLocale(locale), { granularity: 'sentence' })
    segmenters.set(locale, segmenter)
  }
  return segmenter
}

/**
 * A period that ICU takes for a full stop but that rarely ends an English sentence: titles, "e.g.", "No." and
 * single initials ("J. Smith"). V8's Intl.Segmenter has no ICU abbreviation suppressions, so they are mended here.
 */
const abbreviationAtEnd =
  /(?:^|[\s(])(?:Mr|Mrs|Ms|Dr|Prof|St|Mt|Capt|Lt|Sgt|Rev|Gov|No|vs|e\.g|i\.e|cf|[A-Z])\.\s*$/

/**
 * ICU will not end a sentence before a lowercase word, and takes "[sad]" or "<sigh>" for one, so "Done. [sad] Then"
 * would stay one sentence. The segmenter therefore sees tags and emphasis openings as capital letters, which keeps
 * every offset and starts the next sentence at the tag.
 */
function maskMarkup(text: string, spans: Span[]): string {
  let masked = ''
  let last = 0
  for (const { start, end, emphasis } of spans) {
    masked += text.slice(last, start)
    masked += emphasis ? `XXX${text.slice(start + 3, end)}` : 'X'.repeat(end - start)
    last = end
  }
  return masked + text.slice(last)
}

function sentenceEnds(text: string, locale: string, protectedSpans: Span[]): number[] {
  const ends: number[] = []
  const source = protectedSpans.length > 0 ? maskMarkup(text, protectedSpans) : text
  let next = 0 // the first span that has not ended yet; spans come in text order
  for (const { segment, index } of segmenterFor(locale).segment(source)) {
    const end = index + segment.length
    while ((protectedSpans[next]?.end ?? Number.POSITIVE_INFINITY) <= end) next++
    if ((protectedSpans[next]?.start ?? end) < end) continue
    if (end < text.length && abbreviationAtEnd.test(segment.slice(-12))) continue
    ends.push(end)
  }
  return ends
}

/** Sentences with their trailing spaces; markup is never split across two of them. */
export function splitSentences(text: string, locale: string, markup = false): string[] {
  const spans = markup ? markupSpans(text) : []
  let start = 0
  return sentenceEnds(text, locale, spans).map((end) => {
    const sentence = text.slice(start, end)
    start = end
    return sentence
  })
}

const clauseBreak = /[,;:，、；：]\s*/gu
const space = /\s+/g

/** Where to cut an over-long sentence: after clause punctuation, else at a space, else anywhere outside markup. */
function cutPoint(text: string, max: number, markup: boolean): number {
  // Markup can straddle the limit, so look a little past it; an emphasis span is at most about 90 characters.
  const spans = markup ? markupSpans(text.slice(0, max + 100)) : []
  const allowed = (i: number) => i > 0 && i <= max && !spans.some((s) => i > s.start && i < s.end)
  let fallback = 0
  for (const re of [clauseBreak, space]) {
    let best = 0
    for (const m of text.slice(0, max + 1).matchAll(re)) {
      const i = m.index + m[0].length
      if (allowed(i)) best = i
    }
    // A cut far before the limit would leave a needlessly short piece; try the next kind of break first.
    if (best >= max / 2) return best
    fallback = Math.max(fallback, best)
  }
  if (fallback > 0) return fallback
  let i = max
  while (i > 1 && !allowed(i)) i--
  // Never cut a surrogate pair in two.
  return /[\uD800-\uDBFF]/.test(text.charAt(i - 1)) ? i - 1 : i
}

/**
 * What a character weighs when a piece's length is measured, in characters of ordinary prose (about 12 a second at
 * the slowest voices). A digit left as a digit is read as a word ("1 2 3 4" in a German sentence lasts as long as
 * "eins zwei drei vier"), and so is an emoji (about 0.7 s) or a character of a script written without spaces (up to
 * 0.6 s each, an English voice reading Chinese). A word without vowels is spelled, about 0.2 s a letter.
 */
const WORD_WEIGHT = 5
const SPELLED_WEIGHT = 3
const heavy =
  /[\d\p{Extended_Pictographic}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u
const spelled = /^[b-df-hj-np-tv-xz]{8,}$/i

/** How many characters of `text` fit in a piece of `max`. */
function fitting(text: string, max: number): number {
  let weight = 0
  for (const token of text.matchAll(/\S+|\s+/g)) {
    const perLetter = spelled.test(token[0]) ? SPELLED_WEIGHT : 1
    for (let i = 0; i < token[0].length; i++) {
      const c = token[0].charCodeAt(i)
      // A surrogate pair counts once, by its first half.
      if (c >= 0xdc00 && c <= 0xdfff) continue
      // Below U+0E00 (Thai) only the digits weigh more; the test is kept for the rest, which is rarer.
      const isHeavy =
        c < 0x0e00 ? c >= 48 && c <= 57 : heavy.test(String.fromCodePoint(token[0].codePointAt(i) ?? c))
      weight += isHeavy ? WORD_WEIGHT : perLetter
      if (weight > max) return token.index + i
    }
  }
  return text.length
}

function splitLong(sentence: string, max: number, markup: boolean): string[] {
  const pieces: string[] = []
  let rest = sentence
  for (let fit = fitting(rest, max); fit < rest.length; fit = fitting(rest, max)) {
    const cut = cutPoint(rest, fit, markup)
    pieces.push(rest.slice(0, cut))
    rest = rest.slice(cut)
  }
  pieces.push(rest)
  return pieces
}

export function segmentForSynthesis(text: string, opts: SegmentOptions): Segment[] {
  const max = opts.markup ? MAX_SEGMENT_CHARS : MAX_SENTENCE_CHARS
  const pieces = splitSentences(text, opts.locale, opts.markup).flatMap((s) => splitLong(s, max, opts.markup))
  if (!opts.markup) {
    return pieces
      .map((p) => p.trim())
      .filter((p) => p !== '')
      .map((p) => ({ text: p, tokenBudget: SENTENCE_TOKEN_BUDGET }))
  }
  const chunks: string[] = []
  let chunk = ''
  for (const piece of pieces) {
    if (chunk.trim() !== '' && (chunk + piece).trimEnd().length > MAX_SEGMENT_CHARS) {
      chunks.push(chunk)
      chunk = ''
    }
    chunk += piece
  }
  chunks.push(chunk)
  return chunks
    .map((c) => c.trim())
    .filter((c) => c !== '')
    .map((c) => ({ text: c, tokenBudget: MARKUP_CHUNK_TOKEN_BUDGET }))
}
