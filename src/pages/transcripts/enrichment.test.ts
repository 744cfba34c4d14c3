import { describe, expect, it } from 'vitest'
import { enrichmentPieces, plainText } from './enrichment.ts'

describe('enrichment tags (matched case-insensitively)', () => {
  it.each([
    { text: 'plain words', pieces: [{ kind: 'text', text: 'plain words' }] },
    {
      text: '[joyful] hi',
      pieces: [
        { kind: 'emotion', name: 'joyful', raw: '[joyful]' },
        { kind: 'text', text: ' hi' },
      ],
    },
    {
      text: '[JOYFUL]hi<Pause>there',
      pieces: [
        { kind: 'emotion', name: 'joyful', raw: '[JOYFUL]' },
        { kind: 'text', text: 'hi' },
        { kind: 'sound', name: 'pause', raw: '<Pause>' },
        { kind: 'text', text: 'there' },
      ],
    },
    {
      text: 'a [Pause] b <Sad/>',
      pieces: [
        { kind: 'text', text: 'a ' },
        { kind: 'sound', name: 'pause', raw: '[Pause]' },
        { kind: 'text', text: ' b ' },
        { kind: 'emotion', name: 'sad', raw: '<Sad/>' },
      ],
    },
    {
      text: 'I (((really))) mean it',
      pieces: [
        { kind: 'text', text: 'I ' },
        { kind: 'emphasis', text: 'really', raw: '(((really)))' },
        { kind: 'text', text: ' mean it' },
      ],
    },
    { text: 'unknown [tags] and <b> stay', pieces: [{ kind: 'text', text: 'unknown [tags] and <b> stay' }] },
    {
      text: '((((four)))) is not emphasis',
      pieces: [{ kind: 'text', text: '((((four)))) is not emphasis' }],
    },
    { text: '', pieces: [] },
  ])('$text', ({ text, pieces }) => {
    expect(enrichmentPieces(text)).toEqual(pieces)
  })

  it('gives the words without tags', () => {
    expect(plainText('[joyful] so (((very))) <laugh> good')).toBe('so very good')
  })
})
