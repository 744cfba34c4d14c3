import { describe, expect, it } from 'vitest'
import { MAX_PHRASE_CHARS, PhraseBuffer } from './phrase-buffer.ts'

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
})
