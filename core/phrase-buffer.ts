/**
 * Where streamed text ends a phrase, shared by the speech service (which synthesizes phrase by phrase while
 * text is still arriving) and the studio's live box (which sends complete phrases, as contract 4.10 recommends).
 * A phrase ends at sentence punctuation followed by white space, at clause punctuation once the phrase is
 * long enough to be worth speaking, or at the last space before the maximum.
 */
export const MIN_CLAUSE_CHARS = 60
export const MAX_PHRASE_CHARS = 500

export interface PhraseLimits {
  /** A sentence end counts only after this many characters (the service speaks every sentence: 0). */
  minSentenceChars: number
  /** A clause end counts only after this many characters. */
  minClauseChars: number
  /** Longer text is cut at its last space before this many characters. */
  maxPhraseChars: number
}

export const SERVICE_PHRASE_LIMITS: PhraseLimits = {
  minSentenceChars: 0,
  minClauseChars: MIN_CLAUSE_CHARS,
  maxPhraseChars: MAX_PHRASE_CHARS,
}

const SENTENCE_END = /[.!?…。！？]["'”’)\]]*\s+/g
const CLAUSE_END = /[,;:—]\s+/g
const ENDS_SENTENCE = /[.!?…。！？]["'”’)\]]*\s*$/

/** Index just past the first phrase boundary in `text`, white space after it included; 0 when none. */
export function phraseEnd(text: string, limits: PhraseLimits = SERVICE_PHRASE_LIMITS): number {
  SENTENCE_END.lastIndex = limits.minSentenceChars
  const sentence = SENTENCE_END.exec(text)
  if (sentence) return sentence.index + sentence[0].length
  CLAUSE_END.lastIndex = limits.minClauseChars
  const clause = CLAUSE_END.exec(text)
  if (clause) return clause.index + clause[0].length
  if (text.length > limits.maxPhraseChars) {
    const space = text.lastIndexOf(' ', limits.maxPhraseChars)
    return space > 0 ? space + 1 : limits.maxPhraseChars
  }
  return 0
}

/** Index just past the last complete sentence in `text` (one ending the text counts); 0 when none. */
export function lastSentenceEnd(text: string): number {
  if (ENDS_SENTENCE.test(text)) return text.length
  let end = 0
  for (const m of text.matchAll(SENTENCE_END)) end = m.index + m[0].length
  return end
}

/**
 * Collects streamed text and releases complete phrases, so synthesis can start while the client is still
 * typing. Besides the boundaries of `phraseEnd`, the end of an append that ends a sentence releases it
 * (clients are asked to send complete phrases).
 */
export class PhraseBuffer {
  private text = ''

  constructor(private readonly limits: PhraseLimits = SERVICE_PHRASE_LIMITS) {}

  /** Adds text and returns the phrases it completed, in order. */
  append(text: string): string[] {
    this.text += text
    const phrases: string[] = []
    for (let cut = phraseEnd(this.text, this.limits); cut > 0; cut = phraseEnd(this.text, this.limits))
      phrases.push(this.take(cut))
    if (ENDS_SENTENCE.test(this.text)) phrases.push(this.take(this.text.length))
    return phrases.filter((p) => p.length > 0)
  }

  /** Releases whatever is buffered (commit and done). */
  flush(): string[] {
    const rest = this.take(this.text.length)
    return rest ? [rest] : []
  }

  get pending(): number {
    return this.text.length
  }

  private take(end: number): string {
    const phrase = this.text.slice(0, end).trim()
    this.text = this.text.slice(end)
    return phrase
  }
}
