/**
 * Collects streamed text and releases complete phrases, so synthesis can start while the client is still typing.
 * A phrase ends at sentence punctuation followed by white space, at the end of an append that ends a sentence
 * (clients are asked to send complete phrases), at clause punctuation once the phrase is long enough to be worth
 * speaking, or at the last space before MAX_PHRASE characters.
 */
export const MIN_CLAUSE_CHARS = 60
export const MAX_PHRASE_CHARS = 500

const SENTENCE_END = /[.!?…。！？]["'”’)\]]*\s+/g
const CLAUSE_END = /[,;:—]\s+/g
const ENDS_SENTENCE = /[.!?…。！？]["'”’)\]]*\s*$/

export class PhraseBuffer {
  private text = ''

  /** Adds text and returns the phrases it completed, in order. */
  append(text: string): string[] {
    this.text += text
    const phrases: string[] = []
    for (let cut = this.nextCut(); cut > 0; cut = this.nextCut()) phrases.push(this.take(cut))
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

  /** Index just past the first phrase boundary in the buffer, or 0 when there is none yet. */
  private nextCut(): number {
    SENTENCE_END.lastIndex = 0
    const sentence = SENTENCE_END.exec(this.text)
    if (sentence) return sentence.index + sentence[0].length
    CLAUSE_END.lastIndex = MIN_CLAUSE_CHARS
    const clause = CLAUSE_END.exec(this.text)
    if (clause) return clause.index + clause[0].length
    if (this.text.length > MAX_PHRASE_CHARS) {
      const space = this.text.lastIndexOf(' ', MAX_PHRASE_CHARS)
      return space > 0 ? space + 1 : MAX_PHRASE_CHARS
    }
    return 0
  }
}
