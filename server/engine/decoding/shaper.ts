/**
 * One take of a segment: walks its text phrase by phrase and word by word, draws the prosody tokens of
 * prosody-model.ts with the request's decoding controls, and hands the markup planner (markup/plan.ts) the words
 * with the SSML that applies each choice — `<prosody>` for pitch, rate and range, `<break>` for pauses.
 */
import type { ShapedToken, TextShaper } from '../markup/plan.ts'
import { CLOSE_PROSODY, openProsody } from '../markup/prosody.ts'
import {
  END,
  ENDING,
  endingLogits,
  PHRASE_PAUSE,
  PHRASE_PITCH,
  PHRASE_RANGE,
  PHRASE_RATE,
  type PhraseContext,
  phrasePauseLogits,
  phrasePitchLogits,
  phraseRangeLogits,
  phraseRateLogits,
  type TokenKind,
  WORD_ACCENT,
  WORD_GAP,
  wordAccentLogits,
  wordGapLogits,
} from './prosody-model.ts'
import { type DecodingSettings, type Random, sampleToken } from './sampler.ts'

/** eSpeak's own pause at a comma and at a sentence end inside one synthesis, at 175 wpm (measured). */
const OWN_PAUSE_MS = { clause: 150, sentence: 300 }
const REFERENCE_WPM = 175

/** Full-width and other scripts' punctuation ends a unit even without a space after it (Chinese has none). */
const unitRe = /\s+|[^\s，。！？；：、]*[，。！？；：、]+\s*|[^\s]+\s*/gu
const terminal = /[.!?…。！？؟।]["'”’»)\]]*\s*$/u
const clause = /[,;:，、；：،؛]["'”’»)\]]*\s*$/u

/** A drawn token and where it came from, for tests and for docs/decoding.md's figures. */
export interface Draw {
  kind: string
  value: number
}

export interface ProsodyShaperOptions {
  decoding: DecodingSettings
  random: Random
  /** The voice's speaking rate at this request's speed, to know how long eSpeak's own pauses are. */
  wpm?: number
  /** Every draw is reported here when given. */
  onDraw?: (draw: Draw) => void
}

interface Phrase {
  pitch: number
  rate: number
  range: number
}

function endingOf(word: string): PhraseContext['ending'] {
  if (/[?？؟]["'”’»)\]]*\s*$/u.test(word)) return 'question'
  if (/[!！]["'”’»)\]]*\s*$/u.test(word)) return 'exclamation'
  if (terminal.test(word)) return 'sentence'
  if (clause.test(word)) return 'clause'
  return 'open'
}

export class ProsodyShaper implements TextShaper {
  private phrase: Phrase | null = null
  private sentenceStart = true
  /** A pause drawn at the end of the last phrase or word, written where the next one starts. */
  private pendingPauseMs = 0

  constructor(private readonly opts: ProsodyShaperOptions) {}

  private draw(kind: TokenKind, logits: number[]): number {
    const value = kind.values[sampleToken(logits, this.opts.decoding, this.opts.random)] ?? 0
    this.opts.onDraw?.({ kind: kind.name, value })
    return value
  }

  private ownPauseMs(ending: 'clause' | 'sentence'): number {
    return Math.round((OWN_PAUSE_MS[ending] * REFERENCE_WPM) / (this.opts.wpm ?? REFERENCE_WPM))
  }

  shape(plain: string): ShapedToken[] {
    const out: ShapedToken[] = []
    const units = plain.match(unitRe) ?? []
    let opened = false
    for (const [i, unit] of units.entries()) {
      if (!/[\p{L}\p{N}]/u.test(unit)) {
        out.push({ text: unit })
        continue
      }
      if (!this.phrase) {
        // The phrase's context comes from the text up to its end, as far as this run shows it.
        const rest = units.slice(i).find((u) => endingOf(u) !== 'open')
        const ctx: PhraseContext = {
          ending: rest ? endingOf(rest) : 'open',
          sentenceStart: this.sentenceStart,
        }
        this.phrase = {
          pitch: this.draw(PHRASE_PITCH, phrasePitchLogits(ctx)),
          rate: this.draw(PHRASE_RATE, phraseRateLogits(ctx)),
          range: this.draw(PHRASE_RANGE, phraseRangeLogits(ctx)),
        }
        this.sentenceStart = false
      }
      if (!opened) {
        // Before the pause: the planner moves tags in front of the last phrase's punctuation, a pause stays after it.
        out.push({ tag: openProsody({ ...this.phrase, volume: 100 }) })
        opened = true
      }
      if (this.pendingPauseMs > 0) out.push({ pause: `<break time="${this.pendingPauseMs}ms"/>` })
      this.pendingPauseMs = 0

      const accent = this.draw(WORD_ACCENT, wordAccentLogits(unit))
      if (accent !== 0) out.push({ tag: openProsody({ pitch: accent, rate: 100, range: 100, volume: 100 }) })
      out.push({ text: unit })
      if (accent !== 0) out.push({ tag: CLOSE_PROSODY })

      const ending = endingOf(unit)
      if (ending === 'open') {
        this.pendingPauseMs = this.draw(WORD_GAP, wordGapLogits())
        continue
      }
      const kind = ending === 'clause' ? 'clause' : 'sentence'
      const extra = this.draw(PHRASE_PAUSE, phrasePauseLogits(kind))
      // eSpeak pauses for the longer of its own pause and a break, so a break sets own pause + extra.
      this.pendingPauseMs = extra > 0 ? this.ownPauseMs(kind) + extra : 0
      out.push({ tag: CLOSE_PROSODY })
      opened = false
      this.phrase = null
      this.sentenceStart = kind === 'sentence'
    }
    if (opened) out.push({ tag: CLOSE_PROSODY })
    return out
  }

  interrupt() {
    this.pendingPauseMs = 0
  }

  /** At the segment's end: true to hold on for one more audio token, false to stop. */
  holdOn(segmentText: string): boolean {
    return this.draw(ENDING, endingLogits(segmentText)) !== END
  }
}
