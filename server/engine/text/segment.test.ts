import { describe, expect, it } from 'vitest'
import { normalizeText } from './normalize.ts'
import {
  MARKUP_CHUNK_TOKEN_BUDGET,
  MAX_SEGMENT_CHARS,
  MAX_SENTENCE_CHARS,
  SENTENCE_TOKEN_BUDGET,
  segmentForSynthesis,
  splitSentences,
} from './segment.ts'

const plain = (text: string, locale = 'en-US') =>
  segmentForSynthesis(text, { locale, markup: false }).map((s) => s.text)
const marked = (text: string, locale = 'en-US') => segmentForSynthesis(text, { locale, markup: true })
const squash = (s: string) => s.replace(/\s+/g, '')

describe('splitSentences', () => {
  it.each([
    ['en', 'Hello there. How are you? Fine!', ['Hello there. ', 'How are you? ', 'Fine!']],
    ['en', 'Dr. Smith met Mr. Jones. They talked.', ['Dr. Smith met Mr. Jones. ', 'They talked.']],
    ['en', 'J. R. Tolkien wrote it. Then he left.', ['J. R. Tolkien wrote it. ', 'Then he left.']],
    [
      'en',
      'Fruit, e.g. Apples, is good. See No. 5 now.',
      ['Fruit, e.g. Apples, is good. ', 'See No. 5 now.'],
    ],
    ['en', 'It costs 3.50 today. Yes.', ['It costs 3.50 today. ', 'Yes.']],
    ['zh-CN', '你好。你好吗？我很好！', ['你好。', '你好吗？', '我很好！']],
    ['ja', 'こんにちは。元気ですか？はい！', ['こんにちは。', '元気ですか？', 'はい！']],
    ['de', 'Das ist gut. Wirklich? Ja.', ['Das ist gut. ', 'Wirklich? ', 'Ja.']],
    ['hi', 'मैं ठीक हूँ। आप कैसे हैं?', ['मैं ठीक हूँ। ', 'आप कैसे हैं?']],
    ['not a locale!!', 'One. Two.', ['One. ', 'Two.']],
  ])('%s: %j', (locale, text, expected) => {
    expect(splitSentences(text, locale)).toEqual(expected)
  })

  it('starts a new sentence at a tag, which ICU alone would take for a lowercase word', () => {
    expect(splitSentences('Done. [sad] then we cried. I was <um> thinking.', 'en', true)).toEqual([
      'Done. ',
      '[sad] then we cried. ',
      'I was <um> thinking.',
    ])
  })

  it('keeps markup whole even when it holds a full stop', () => {
    expect(splitSentences('Listen. (((Stop. Now.))) Then go.', 'en', true)).toEqual([
      'Listen. ',
      '(((Stop. Now.))) ',
      'Then go.',
    ])
  })
})

describe('segmentForSynthesis, plain text', () => {
  it('gives one segment per sentence with a 30-second budget', () => {
    const segments = segmentForSynthesis('Hello there. How are you?\n\nFine!', {
      locale: 'en-US',
      markup: false,
    })
    expect(segments).toEqual([
      { text: 'Hello there.', tokenBudget: SENTENCE_TOKEN_BUDGET },
      { text: 'How are you?', tokenBudget: SENTENCE_TOKEN_BUDGET },
      { text: 'Fine!', tokenBudget: SENTENCE_TOKEN_BUDGET },
    ])
    expect(SENTENCE_TOKEN_BUDGET).toBe(750)
  })

  it('ends Chinese and Japanese sentences at 。！？', () => {
    expect(plain('我有三只猫。你呢？太好了！', 'zh-CN')).toEqual(['我有三只猫。', '你呢？', '太好了！'])
    expect(plain('猫がいます。犬は？いいね！', 'ja')).toEqual(['猫がいます。', '犬は？', 'いいね！'])
  })

  it('does not split after titles', () => {
    expect(plain('Dr. Smith and Mrs. Brown arrived. St. Louis was cold.')).toEqual([
      'Dr. Smith and Mrs. Brown arrived.',
      'St. Louis was cold.',
    ])
  })

  it('cuts a very long sentence at clause punctuation first', () => {
    const clause = 'and then the quick brown fox jumped over the lazy dog again'
    const sentence = `${Array.from({ length: 30 }, () => clause).join(', ')}.`
    const pieces = plain(sentence)
    expect(pieces.length).toBeGreaterThan(1)
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(MAX_SENTENCE_CHARS)
    for (const p of pieces.slice(0, -1)) expect(p.endsWith(',')).toBe(true)
    expect(squash(pieces.join(''))).toBe(squash(sentence))
  })

  it('cuts at spaces when there is no clause punctuation', () => {
    const sentence = `${'word '.repeat(400)}end.`
    const pieces = plain(sentence)
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(MAX_SENTENCE_CHARS)
      expect(p).toMatch(/^(word )*(word|end\.)$/)
    }
    expect(squash(pieces.join(''))).toBe(squash(sentence))
  })

  it('cuts unspaced text anywhere, but never inside a surrogate pair', () => {
    // The limit falls on the mathematical letter, two UTF-16 units that count as one character.
    const text = `${'ж'.repeat(MAX_SENTENCE_CHARS - 1)}𝒜${'ж'.repeat(600)}.`
    const pieces = plain(text, 'ru')
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(MAX_SENTENCE_CHARS + 1)
      expect(p).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/)
    }
    expect(pieces[0]).toBe(`${'ж'.repeat(MAX_SENTENCE_CHARS - 1)}𝒜`)
    expect(pieces.join('')).toBe(text)
  })

  it.each([
    ['Chinese', '猫', 'zh'],
    ['emoji', '😀', 'en-US'],
  ])('weighs %s as words: about a word per character', (_, char, locale) => {
    const pieces = plain(char.repeat(600), locale)
    for (const p of pieces) expect([...p].length).toBeLessThanOrEqual(MAX_SENTENCE_CHARS / 5)
    expect(pieces.join('')).toBe(char.repeat(600))
  })

  it('weighs a word without vowels, which is spelled, at three characters a letter', () => {
    const run = Array.from({ length: 40 }, () => 'xxxxxxxxxxxxxxxx').join(' ')
    const pieces = plain(run)
    for (const p of pieces) expect(p.replace(/ /g, '').length * 3).toBeLessThanOrEqual(MAX_SENTENCE_CHARS)
    expect(pieces.join(' ')).toBe(run)
  })

  it('cuts a long digit reading at its group pauses, in pieces that fit the 30-second budget', () => {
    const reading = normalizeText('1234567890'.repeat(20), { voiceLanguage: 'en-US' })
    const pieces = plain(reading)
    expect(pieces.length).toBeGreaterThan(4)
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(MAX_SENTENCE_CHARS)
    for (const p of pieces.slice(0, -1)) expect(p).toMatch(/[a-z]+,$/)
    expect(squash(pieces.join(' '))).toBe(squash(reading))
  })

  it('weighs a digit read alone as a short word, so a spelled-out run is cut as often as its reading needs', () => {
    const reading = normalizeText(`Konto ${'1234567890'.repeat(20)}.`, { voiceLanguage: 'de' })
    const pieces = plain(reading, 'de')
    // 200 digits at five characters' weight each, in pieces of at most 240: at least five of them.
    expect(pieces.length).toBeGreaterThanOrEqual(5)
    for (const p of pieces) expect((p.match(/\d/g)?.length ?? 0) * 5).toBeLessThanOrEqual(MAX_SENTENCE_CHARS)
    expect(squash(pieces.join(' '))).toBe(squash(reading))
  })

  it('drops empty input', () => {
    expect(plain('')).toEqual([])
    expect(plain('   \n\n ')).toEqual([])
  })
})

describe('segmentForSynthesis, marked-up text', () => {
  const story = Array.from(
    { length: 40 },
    (_, i) => `[sad] Sentence ${i} tells (((a sad tale))) of loss. <sigh> It goes on, and on, and on.`,
  ).join(' ')

  it('packs sentences into chunks of up to about 530 characters with a 90-second budget', () => {
    const chunks = marked(story)
    expect(chunks.length).toBeGreaterThan(1)
    for (const c of chunks) {
      expect(c.tokenBudget).toBe(MARKUP_CHUNK_TOKEN_BUDGET)
      expect(c.text.length).toBeLessThanOrEqual(MAX_SEGMENT_CHARS)
      // Cut at sentence boundaries: every chunk starts a sentence and ends one.
      expect(c.text).toMatch(/^\[sad\]/)
      expect(c.text).toMatch(/on\.$/)
    }
    expect(MARKUP_CHUNK_TOKEN_BUDGET).toBe(2250)
    expect(squash(chunks.map((c) => c.text).join(''))).toBe(squash(story))
  })

  it('never cuts inside a tag or an emphasis when a sentence is too long', () => {
    const sentence = `${Array.from({ length: 60 }, (_, i) => `word${i} (((stressed words here))) <laugh> [joyful]`).join(' ')}.`
    const chunks = marked(sentence)
    expect(chunks.length).toBeGreaterThan(1)
    for (const { text } of chunks) {
      expect(text.length).toBeLessThanOrEqual(MAX_SEGMENT_CHARS)
      expect(text.match(/\(\(\(/g)?.length).toBe(text.match(/\)\)\)/g)?.length)
      expect(text).not.toMatch(/^[^<]*>|<[^>]*$|^[^[]*\]|\[[^\]]*$/)
    }
    expect(squash(chunks.map((c) => c.text).join(''))).toBe(squash(sentence))
  })

  it('keeps an emphasis that straddles the limit in one piece', () => {
    const lead = 'a'.repeat(MAX_SEGMENT_CHARS - 10)
    const text = `${lead} (((do not split me))) tail.`
    const [first, second] = marked(text)
    expect(first?.text).toBe(lead)
    expect(second?.text).toBe('(((do not split me))) tail.')
  })
})

describe('the largest input', () => {
  it('segments 40,000 characters', () => {
    const text = 'Dr. Smith paid $3.50, then left. [sad] Why? (((Because))) he had to! <sigh> '
      .repeat(520)
      .slice(0, 40_000)
    const plainSegments = plain(text)
    const markedSegments = marked(text)
    expect(plainSegments.length).toBeGreaterThan(1000)
    expect(markedSegments.length).toBeGreaterThan(70)
  })
})
