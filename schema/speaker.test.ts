import { describe, expect, it } from 'vitest'
import { castSchema, scriptDocumentSchema } from './scripts.ts'
import { isSpeakerName, speakerKey, speakerPrefix, spokenLine } from './speaker.ts'

const cast = [
  { name: 'Alice', settings: {} },
  { name: 'Dr. Smith', settings: {} },
]

describe('speakerPrefix', () => {
  it.each([
    ['ALICE: Hello.', 'ALICE', 0, 5, 7],
    ['  Bob:   Hi.', 'Bob', 2, 5, 9],
    ['Dr. Smith: Sit down.', 'Dr. Smith', 0, 9, 11],
    ['Mary  Jane Watson: Hi.', 'Mary Jane Watson', 0, 17, 19],
    ["O'Brien: Aye.", "O'Brien", 0, 7, 9],
    ['Jean-Luc: Engage.', 'Jean-Luc', 0, 8, 10],
    ['R2: Beep.', 'R2', 0, 2, 4],
    ['Émile : Oui.', 'Émile', 0, 5, 8],
    ['ALICE:', 'ALICE', 0, 5, 6],
  ])('%j names %j', (text, name, start, end, textStart) => {
    expect(speakerPrefix(text)).toEqual({ name, start, end, textStart })
  })

  it.each([
    ['a lower-case word', 'note: this'],
    ['four words', 'One Two Three Four: hi'],
    ['a word in lower case among them', 'Alice and Bob: hi'],
    ['no space after the colon', 'Time:10'],
    ['a URL', 'Https://example.com'],
    ['a colon later in the line', 'She said: hi'],
    ['no colon', 'ALICE Hello'],
    ['a name too long', `${'A'.repeat(41)}: hi`],
    ['nothing before the colon', ': hi'],
  ])('none for %s', (_, text) => {
    expect(speakerPrefix(text)).toBeNull()
  })
})

describe('spokenLine', () => {
  it('gives a cast member’s line to them, without the prefix, in any letter case', () => {
    expect(spokenLine('ALICE: Hello there.', cast)).toMatchObject({ member: cast[0], input: 'Hello there.' })
    expect(spokenLine('dr.  smith: no', cast).member).toBeNull() // lower-case words are not a speaker prefix
    expect(spokenLine('DR. SMITH: Sit.', cast)).toMatchObject({ member: cast[1], input: 'Sit.' })
  })

  it('speaks a prefix the cast lacks as written, and knows it was one', () => {
    const line = spokenLine('Note: this is prose.', cast)
    expect(line).toMatchObject({ member: null, input: 'Note: this is prose.' })
    expect(line.prefix?.name).toBe('Note')
    expect(spokenLine('Plain prose.', cast)).toEqual({ member: null, input: 'Plain prose.', prefix: null })
  })

  it('keeps the markup after the prefix', () => {
    expect(spokenLine('Alice: [sad] I (((lost))) it.', cast).input).toBe('[sad] I (((lost))) it.')
  })

  it('has no speakers without a cast', () => {
    expect(spokenLine('ALICE: Hello.').member).toBeNull()
  })
})

describe('cast names', () => {
  it('are speaker names, compared without case or spacing', () => {
    expect(isSpeakerName('Alice')).toBe(true)
    expect(isSpeakerName('Dr. Smith')).toBe(true)
    expect(isSpeakerName('alice')).toBe(false)
    expect(isSpeakerName(' Alice')).toBe(false)
    expect(isSpeakerName('Alice:')).toBe(false)
    expect(isSpeakerName('A\nB')).toBe(false)
    expect(speakerKey(' Mary  JANE ')).toBe('mary jane')
  })

  it('are unique in a cast, and a cast has at most 50 members', () => {
    const twice = castSchema.safeParse([
      { name: 'Alice', settings: {} },
      { name: 'ALICE', settings: {} },
    ])
    expect(twice.success).toBe(false)
    expect(twice.error?.issues[0]).toMatchObject({ path: [1, 'name'], message: 'ALICE is in the cast twice' })
    const many = Array.from({ length: 51 }, (_, i) => ({ name: `Speaker${i}`, settings: {} }))
    expect(castSchema.safeParse(many).success).toBe(false)
    expect(castSchema.safeParse(many.slice(0, 50)).success).toBe(true)
  })

  it('leave scripts without a cast valid', () => {
    const doc = {
      title: 'Old',
      settings: { model: 'svc-tts-2-latest', voice: 'eleanor_somber_female_32' },
      lines: [{ id: 'ln_000000', text: 'Hi.' }],
    }
    expect(scriptDocumentSchema.safeParse(doc).success).toBe(true)
    expect(scriptDocumentSchema.safeParse({ ...doc, cast }).success).toBe(true)
  })
})
