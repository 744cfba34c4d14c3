import { describe, expect, it } from 'vitest'
import {
  lastSentenceEnd,
  MAX_PHRASE_CHARS,
  MIN_CLAUSE_CHARS,
  PhraseBuffer,
  type PhraseLimits,
  phraseEnd,
} from './phrase-buffer.ts'

describe('PhraseBuffer', () => {
  it('releases a sentence once white space follows its end, keeping the rest', () => {
    const b = new PhraseBuffer()
    expect(b.append('Hello there')).toEqual([])
    expect(b.append('. How are')).toEqual(['Hello there.'])
    expect(b.append(' you? I am')).toEqual(['How are you?'])
    expect(b.flush()).toEqual(['I am'])
    expect(b.flush()).toEqual([])
  })

  it('treats an append that ends a sentence as a complete phrase', () => {
    const b = new PhraseBuffer()
    expect(b.append('It is done.')).toEqual(['It is done.'])
    expect(b.append('“Quoted!”')).toEqual(['“Quoted!”'])
  })

  it('does not cut inside numbers or abbreviations without following space', () => {
    const b = new PhraseBuffer()
    expect(b.append('Pi is 3.14 and e')).toEqual([])
    expect(b.append(' is 2.71')).toEqual([])
    expect(b.flush()).toEqual(['Pi is 3.14 and e is 2.71'])
  })

  it('cuts at a clause only once the phrase is long enough', () => {
    const b = new PhraseBuffer()
    expect(b.append('Short, ')).toEqual([])
    const long = 'This clause is long enough to be spoken on its own without waiting'
    expect(b.append(`${long}, and more`)).toEqual([`Short, ${long},`])
    expect(b.flush()).toEqual(['and more'])
  })

  it('breaks very long unpunctuated text at a space before the maximum', () => {
    const b = new PhraseBuffer()
    const phrases = b.append('word '.repeat(150))
    expect(phrases.length).toBe(1)
    expect(phrases[0]?.length).toBeLessThanOrEqual(MAX_PHRASE_CHARS)
    expect(phrases[0]?.endsWith('word')).toBe(true)
    expect([...phrases, ...b.flush()].join(' ').split(' ').length).toBe(150)
  })

  it('takes its thresholds as options', () => {
    const b = new PhraseBuffer({ minSentenceChars: 20, minClauseChars: 10, maxPhraseChars: 30 })
    expect(b.append('Hi. Short one. Then')).toEqual([])
    expect(b.append(' a third. More')).toEqual(['Hi. Short one. Then a third.'])
    expect(b.append(' words, then more')).toEqual(['More words,'])
    expect(b.append(' and more and more words')).toEqual(['then more and more and more'])
    expect(b.flush()).toEqual(['words'])
  })
})

describe('phraseEnd', () => {
  const client: PhraseLimits = { minSentenceChars: 50, minClauseChars: 50, maxPhraseChars: MAX_PHRASE_CHARS }

  it('keeps the service thresholds by default', () => {
    const clause = `${'a'.repeat(MIN_CLAUSE_CHARS - 1)}, b`
    expect(phraseEnd(clause)).toBe(0)
    expect(phraseEnd(`a${clause}`)).toBe(MIN_CLAUSE_CHARS + 2)
    expect(phraseEnd('Hi. There')).toBe(4)
  })

  it('passes over sentence ends before the minimum and includes the white space after the end', () => {
    const text = 'Hi. Short. This sentence carries the phrase past fifty characters. Next'
    expect(phraseEnd(text, client)).toBe(text.indexOf('Next'))
    expect(phraseEnd('Hi. Short. ', client)).toBe(0)
  })

  it('needs white space after a boundary, since more text may follow', () => {
    expect(phraseEnd(`${'word '.repeat(12)}ends here.`, client)).toBe(0)
  })
})

describe('lastSentenceEnd', () => {
  it('finds the end of the last complete sentence, one that ends the text included', () => {
    expect(lastSentenceEnd('One. Two! Three')).toBe('One. Two! '.length)
    expect(lastSentenceEnd('One. Two?”  ')).toBe('One. Two?”  '.length)
    expect(lastSentenceEnd('Pi is 3.14 and')).toBe(0)
  })
})
