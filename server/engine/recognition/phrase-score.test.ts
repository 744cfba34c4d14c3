import { describe, expect, it } from 'vitest'
import type { SegmentedWord } from './decoder-output.ts'
import { buildPhraseGrammar, wordsToLookUp } from './phrase-grammar.ts'
import { MIN_SPOKEN_GAP_FRAMES, SPOKEN_GAP, scorePhrase } from './phrase-score.ts'
import { phraseWords } from './phrase-words.ts'

describe('phraseWords', () => {
  it.each([
    ['I am the owner of this voice.', ['i', 'am', 'the', 'owner', 'of', 'this', 'voice']],
    ["I'm sure it's its own—isn't it?", ['i', 'am', 'sure', 'it', 'is', 'its', 'own', 'is', 'not', 'it']],
    ['Call me at 3:30, Dr. Lee', ['call', 'me', 'at', 'three', 'thirty', 'doctor', 'lee']],
    ['Grüße, Zoë!', ['grüße', 'zoë']],
    ['  …  ', []],
  ])('%s', (phrase, words) => {
    expect(phraseWords(phrase)).toEqual(words)
  })
})

describe('buildPhraseGrammar', () => {
  const pronunciations = new Map([
    ['i', ['i AY']],
    ['am', ['am AE M']],
    ["i'm", ["i'm AY M", "i'm(2) AH M"]],
    ['here', ['here HH IY R']],
  ])

  it('allows every known word, in order, optional, with gaps; a contraction may replace its two words', () => {
    const words = ['i', 'am', 'zqx', 'here']
    expect([...wordsToLookUp(words)].sort()).toEqual(["i'm", 'am', 'here', 'i', 'zqx'].sort())
    const grammar = buildPhraseGrammar(words, pronunciations)
    expect(grammar.known).toEqual([true, true, false, true])
    expect(grammar.jsgf).toContain(
      "public <phrase> = [<gap>] ( [i] [<gap>] [am] | i'm ) [<gap>] [here] [<gap>];",
    )
    expect(grammar.dictionary.split('\n')).toEqual(
      expect.arrayContaining(['i AY', "i'm(2) AH M", '_sil SIL', '_speech +SPN+']),
    )
    expect(grammar.dictionary).not.toContain('zqx')
  })
})

describe('scorePhrase', () => {
  const phrase = ['i', 'am', 'the', 'owner']
  const known = [true, true, true, true]
  /** Words in sequence, 20 frames each; `_sil` gaps voiced or not. */
  const decode = (...words: string[]): SegmentedWord[] =>
    words.map((word, i) => ({ word: word.replace(/!$/, ''), startFrame: i * 20, endFrame: i * 20 + 20 }))
  /** Frames voiced everywhere except in gaps not marked with `!`. */
  const voicing = (...words: string[]) => {
    const voiced = new Uint8Array(words.length * 20)
    words.forEach((word, i) => {
      if (!word.startsWith('_') || word.endsWith('!')) voiced.fill(1, i * 20, i * 20 + 20)
    })
    return voiced
  }
  const score = (k: readonly boolean[], ...words: string[]) =>
    scorePhrase(phrase, k, decode(...words), voicing(...words))

  it.each([
    { words: ['_sil', 'i', 'am', 'the', 'owner', '_sil'], heard: 'i am the owner', value: 1 },
    { words: ['i', '_sil', 'am', 'the', '_noise', 'owner'], heard: 'i am the owner', value: 1 },
    { words: ["i'm", 'the', 'owner'], heard: 'i am the owner', value: 1 },
    { words: ['i', 'am', 'owner'], heard: 'i am owner', value: 0.75 },
    { words: ['i', 'am', '_sil!', 'owner'], heard: `i am ${SPOKEN_GAP} owner`, value: 0.75 },
    { words: ['i', 'am', '_sil!', 'the', 'owner'], heard: `i am ${SPOKEN_GAP} the owner`, value: 0.75 },
    { words: ['_speech!', 'i', 'am', 'the', 'owner', '_sil!'], heard: 'i am the owner', value: 1 },
    { words: ['_speech!', '_sil'], heard: '', value: 0 },
    { words: ['_sil'], heard: '', value: 0 },
  ])('$words → $value', ({ words, heard, value }) => {
    expect(score(known, ...words)).toEqual({ heard, score: value })
  })

  it('counts a gap as speech only from a short word’s length of voicing', () => {
    const segmentation = decode('i', '_sil', 'am', 'the', 'owner')
    const voiced = voicing('i', '_sil', 'am', 'the', 'owner')
    voiced.fill(1, 20, 20 + MIN_SPOKEN_GAP_FRAMES - 1)
    expect(scorePhrase(phrase, known, segmentation, voiced).score).toBe(1)
    voiced.fill(1, 20, 20 + MIN_SPOKEN_GAP_FRAMES)
    expect(scorePhrase(phrase, known, segmentation, voiced).score).toBe(0.75)
  })

  it('leaves words the dictionary lacks out of the length, and lets a spoken gap stand for them', () => {
    const unknownThe = [true, true, false, true]
    expect(score(unknownThe, 'i', 'am', '_sil!', 'owner')).toEqual({
      heard: `i am ${SPOKEN_GAP} owner`,
      score: 1,
    })
    expect(score(unknownThe, 'i', 'am', 'owner')).toEqual({ heard: 'i am owner', score: 1 })
    expect(score(unknownThe, 'i', 'owner').score).toBeCloseTo(2 / 3, 10)
    expect(score([false, false, false, false], '_sil!')).toEqual({ heard: '', score: 0 })
  })
})
