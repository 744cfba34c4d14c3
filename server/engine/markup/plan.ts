/**
 * The markup stage of the second-generation model (contract 2.7): turns text with emotion tags, sound tags and emphasis
 * into SSML for eSpeak NG and the non-speech sounds between it. The 0.8 models read brackets as words and never
 * come here.
 *
 * Scope of an emotion: from its tag to the end of that sentence. A second emotion tag in the same sentence takes
 * over from where it stands; the next sentence starts neutral again. A sound tag inside an emotion's sentence
 * interrupts the speech but not the emotion.
 */
import { escapeForSsml } from '../espeak/text.ts'
import { type Piece, splitMarkup } from '../text/markup.ts'
import { splitSentences } from '../text/segment.ts'
import {
  CLOSE_EMPHASIS,
  CLOSE_PROSODY,
  EMOTION_PROSODY,
  openEmphasis,
  openProsody,
  type Prosody,
} from './prosody.ts'
import { classifyTag, type SoundTag } from './tags.ts'

export type UtterancePart =
  | {
      kind: 'speech'
      /** An SSML fragment (no <speak> wrapper) with the user's text escaped, for a synthesis job with `ssml: true`. */
      ssml: string
    }
  | { kind: 'sound'; sound: SoundTag }

type Token = { text: string } | { tag: string }

/**
 * What a shaper hands back for a run of plain text: words (escaped later), SSML tags that the planner places in front
 * of trailing punctuation like its own, and pauses (`<break>`) that stay exactly where they stand.
 */
export type ShapedToken = { text: string } | { tag: string } | { pause: string }

/**
 * Shapes plain text before it becomes SSML — the decoding stage's sampled prosody (server/engine/decoding/). Every
 * tag a `shape` call opens it also closes, so the shaped text nests inside emotions and emphasis.
 */
export interface TextShaper {
  shape(plain: string): ShapedToken[]
  /** Speech stops here for a sound: nothing drawn for the speech before it carries over. */
  interrupt(): void
}

export interface PlanOptions {
  /** Interpret inline markup (default); false reads brackets as words, as the 0.8 models do. */
  markup?: boolean
  shaper?: TextShaper
}

/**
 * Trailing clause and sentence punctuation (with the ellipsis), closing quotes and brackets, and spaces: SSML tags go
 * in front of them (see `PartBuilder.tag`). Symbols that are read aloud, such as "&" or "%", are words and stay put.
 */
const trailingPunctuation = /[\s…\p{Terminal_Punctuation}\p{Quotation_Mark}\p{Pe}\p{Pf}]*$/u

/**
 * Text that only pauses: spaces and clause, sentence, quotation, bracket and dash punctuation. Anything else is read
 * aloud — letters, digits, and the symbols and emoji eSpeak NG has names for.
 */
const pausesOnly = /^[\s…\p{Terminal_Punctuation}\p{Quotation_Mark}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Pd}]*$/u

/** Collects parts: speech accumulates until a sound tag cuts it, with the emotion's <prosody> opened only around text. */
class PartBuilder {
  readonly parts: UtterancePart[] = []
  private tokens: Token[] = []
  private emotion: Prosody | undefined
  private open = false

  constructor(private readonly shaper?: TextShaper) {}

  text(plain: string, emphasized: boolean) {
    if (plain === '') return
    if (this.emotion && !this.open) {
      this.tag(openProsody(this.emotion))
      this.open = true
    }
    if (emphasized) this.tag(openEmphasis(this.emotion))
    if (!this.shaper) this.tokens.push({ text: plain })
    for (const token of this.shaper?.shape(plain) ?? []) {
      if ('text' in token) this.tokens.push(token)
      else if ('tag' in token) this.tag(token.tag)
      else this.tokens.push({ tag: token.pause })
    }
    if (emphasized) this.tag(CLOSE_EMPHASIS)
  }

  setEmotion(emotion: Prosody | undefined) {
    this.close()
    this.emotion = emotion
  }

  sound(sound: SoundTag) {
    this.flush()
    this.shaper?.interrupt()
    this.parts.push({ kind: 'sound', sound })
  }

  /** Ends the speech part in progress; a part with nothing to pronounce (only spaces and pauses) is dropped. */
  flush() {
    this.close()
    if (this.tokens.some((t) => 'text' in t && !pausesOnly.test(t.text))) {
      const ssml = this.tokens.map((t) => ('text' in t ? escapeForSsml(t.text) : t.tag)).join('')
      this.parts.push({ kind: 'speech', ssml: ssml.trim() })
    }
    this.tokens = []
  }

  private close() {
    if (this.open) this.tag(CLOSE_PROSODY)
    this.open = false
  }

  /**
   * Adds an SSML tag in front of the punctuation and spaces that end the text so far. eSpeak NG reads a tag that
   * follows a sentence's final punctuation after that sentence has ended and before the next has begun, and its
   * setting is lost: measured, an emotion leaked into the next sentence and emphasis at a sentence start vanished.
   * Before the punctuation, the tag takes effect from the next word on, which is where it was meant to act.
   */
  private tag(tag: string) {
    const last = this.tokens.at(-1)
    if (last && 'text' in last) {
      const tail = trailingPunctuation.exec(last.text)?.[0] ?? ''
      if (tail.trim() !== '') {
        const head = last.text.slice(0, last.text.length - tail.length)
        this.tokens.splice(-1, 1, ...(head === '' ? [] : [{ text: head }]), { tag }, { text: tail })
        return
      }
    }
    this.tokens.push({ tag })
  }
}

/**
 * Tags are never spoken; text that only looks like markup ("[happy]", "((two))") stays text and is read as written.
 * `locale` (BCP 47, the voice's language) picks the sentence rules that bound each emotion. With `markup: false`
 * everything is text, which lets plain text take a shaper's prosody too.
 */
export function planUtterance(text: string, locale = 'en', opts: PlanOptions = {}): UtterancePart[] {
  const builder = new PartBuilder(opts.shaper)
  if (opts.markup === false) {
    builder.text(text, false)
    builder.flush()
    return builder.parts
  }
  const handle = (piece: Piece, emphasized: boolean) => {
    const tag = piece.kind === 'tag' ? classifyTag(piece.text) : undefined
    if (tag?.kind === 'emotion') builder.setEmotion(EMOTION_PROSODY[tag.tag])
    else if (tag?.kind === 'sound') builder.sound(tag.tag)
    else builder.text(piece.text, emphasized)
  }
  // The sentence splitter never cuts through markup and starts a sentence at a tag that precedes it.
  for (const sentence of splitSentences(text, locale, true)) {
    for (const piece of splitMarkup(sentence)) {
      if (piece.kind !== 'emphasis') {
        handle(piece, false)
        continue
      }
      // Emphasis may hold tags ("(((no <gasp> way)))"): they act as tags and the words around them stay stressed.
      for (const inner of splitMarkup(piece.text)) handle(inner, true)
    }
    builder.setEmotion(undefined)
  }
  builder.flush()
  return builder.parts
}
