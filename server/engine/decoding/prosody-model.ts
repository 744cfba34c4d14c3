/**
 * The prosody-token model: for every phrase and word of a segment it predicts a distribution over discrete prosody
 * tokens — a pitch step, a rate and a pitch range per phrase, a pitch accent per word, the pause after a phrase, an
 * optional gap after a word, and at the end of a segment whether to stop or hold on. The decoding controls act on
 * these logits (sampler.ts); docs/decoding.md lists the vocabularies and what extreme settings do with them.
 *
 * Every distribution has a sharp peak at the model's expectation and heavy, power-law tails. A low temperature leaves
 * little but the peak; at the presets the filters keep the peak and its neighbours, so a take varies by a fraction
 * of a semitone and a few percent of rate; with a high temperature and no filters the tails (pitch jumps of several
 * semitones, half or double rate, long gaps between words) are drawn often enough to garble the speech, as contract 2.8
 * rule 7 says.
 */

/** One kind of prosody token: its vocabulary, and how the model scores each entry in a context. */
export interface TokenKind {
  name: string
  values: readonly number[]
}

/**
 * Logits peaked at `expected`: `-weight · ln(1 + |v − expected| / scale)`, so a token's probability falls as a power
 * of its distance, `(1 + d/scale)^(−weight/temperature)`: steeply at a low temperature (the peak alone), gently at
 * a high one (the tails).
 */
export function peakedLogits(
  values: readonly number[],
  expected: number,
  scale: number,
  weight: number,
): number[] {
  return values.map((v) => -weight * Math.log1p(Math.abs(v - expected) / scale))
}

/** Signed offsets on eSpeak's 0–100 pitch scale (about a quarter of a semitone each) for a whole phrase. */
export const PHRASE_PITCH: TokenKind = {
  name: 'phrase pitch',
  values: [-40, -30, -22, -16, -12, -8, -6, -4, -2, 0, 2, 4, 6, 8, 12, 16, 22, 30, 40],
}
/** Speaking rate of a phrase, percent of the voice's. */
export const PHRASE_RATE: TokenKind = {
  name: 'phrase rate',
  values: [50, 60, 70, 78, 84, 88, 91, 94, 97, 100, 103, 106, 110, 115, 122, 132, 150, 175, 200],
}
/** Pitch range of a phrase, percent of the voice's: below 100 a flatter melody, above a livelier one. */
export const PHRASE_RANGE: TokenKind = {
  name: 'phrase range',
  values: [5, 20, 35, 50, 62, 72, 80, 87, 93, 100, 107, 115, 125, 140, 160, 190, 230, 280],
}
/** A pitch accent on one word, relative to its phrase, on the same scale as PHRASE_PITCH. */
export const WORD_ACCENT: TokenKind = {
  name: 'word accent',
  values: [-30, -20, -14, -10, -6, -3, 0, 3, 6, 10, 14, 20, 30],
}
/** Milliseconds added to eSpeak's own pause at a comma or a sentence end inside a segment. */
export const PHRASE_PAUSE: TokenKind = {
  name: 'phrase pause',
  values: [0, 40, 80, 130, 200, 300, 450, 650, 900, 1300],
}
/** A gap after a word inside a phrase, in milliseconds; 0 is none, the usual choice by far. */
export const WORD_GAP: TokenKind = {
  name: 'word gap',
  values: [0, 80, 160, 300, 500, 800],
}
/** At the end of a segment: 0 stops, 1 holds on for one more audio token (40 ms of silence) and asks again. */
export const ENDING: TokenKind = { name: 'ending', values: [0, 1] }
export const END = 0
export const HOLD = 1

/** Where a phrase stands, as far as the text shows: how it ends, and whether it opens its sentence. */
export interface PhraseContext {
  /** The punctuation that ends the phrase, if the text shows it yet. */
  ending: 'question' | 'exclamation' | 'sentence' | 'clause' | 'open'
  sentenceStart: boolean
}

/**
 * Phrases open a little higher and close a little lower and slower; questions rise, exclamations widen. Every
 * expectation falls on a token, so the likeliest token is clear and greedy decoding has no near-ties to break.
 */
export function phrasePitchLogits(ctx: PhraseContext): number[] {
  let expected = ctx.sentenceStart ? 2 : 0
  if (ctx.ending === 'sentence') expected -= 4
  if (ctx.ending === 'question') expected += 6
  if (ctx.ending === 'exclamation') expected += 4
  return peakedLogits(PHRASE_PITCH.values, expected, 4, 2.5)
}

export function phraseRateLogits(ctx: PhraseContext): number[] {
  const expected = ctx.ending === 'sentence' || ctx.ending === 'question' ? 97 : 100
  return peakedLogits(PHRASE_RATE.values, expected, 5, 2.5)
}

export function phraseRangeLogits(ctx: PhraseContext): number[] {
  const expected = ctx.ending === 'exclamation' || ctx.ending === 'question' ? 107 : 100
  return peakedLogits(PHRASE_RANGE.values, expected, 12, 2.5)
}

/** Long words (content words, mostly) lean towards a small rise; short ones stay on the phrase's pitch. */
export function wordAccentLogits(word: string): number[] {
  const letters = word.replace(/[^\p{L}\p{N}]/gu, '').length
  return peakedLogits(WORD_ACCENT.values, letters >= 7 ? 3 : 0, 3, 3)
}

/** A sentence end invites a longer pause than a comma; either way the model expects eSpeak's own. */
export function phrasePauseLogits(ending: 'sentence' | 'clause'): number[] {
  return peakedLogits(PHRASE_PAUSE.values, 0, ending === 'sentence' ? 60 : 40, 2.5)
}

/** A gap inside a phrase is unlikely at any temperature under 1 with a top_p filter, likely only in the tails. */
export function wordGapLogits(): number[] {
  return WORD_GAP.values.map((ms) => (ms === 0 ? 0 : -4.2 - 0.5 * Math.log(ms / 80)))
}

/**
 * Stop or hold on at a segment's end. After a full stop the model is sure; after a comma fairly sure; after text
 * that simply stops — a phrase of a live stream, or a piece of an over-long sentence — it leans towards more
 * speech to come. Sampling stops within a token or two; greedy decoding, or a top_p so tight that only "hold"
 * survives, holds on until the segment's token cap (contract 2.8 rule 7).
 */
export function endingLogits(lastText: string): number[] {
  const tail = lastText.trimEnd()
  if (/[.!?…。！？؟।]["'”’»)\]]*$/u.test(tail)) return [0, -3]
  if (/[,;:，、；：،؛]["'”’»)\]]*$/u.test(tail)) return [0, -1.2]
  return [0, 0.2]
}
