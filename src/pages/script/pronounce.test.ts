import { describe, expect, it } from 'vitest'
import { findMarkup } from '../../../schema/index.ts'
import { applyPronunciations, buildLexicon, type LexiconEntry } from './pronounce.ts'

const entry = (text: string, say_as: string, extra: Partial<LexiconEntry> = {}): LexiconEntry => ({
  text,
  say_as,
  phonemes: null,
  case_sensitive: false,
  ...extra,
})

const say = (line: string, entries: LexiconEntry[], phonemes = false) =>
  applyPronunciations(line, buildLexicon(entries), phonemes)

describe('the pronunciation matcher', () => {
  it('replaces whole words only, never inside another word', () => {
    const lex = [entry('Kokoro', 'koh-KOH-roh')]
    expect(say('Kokoro reads.', lex)).toBe('koh-KOH-roh reads.')
    expect(say('Kokorotron and xKokoro stay.', lex)).toBe('Kokorotron and xKokoro stay.')
    expect(say('Kokoro2 stays; Kokoro_ does not.', lex)).toBe('Kokoro2 stays; koh-KOH-roh_ does not.')
  })

  it('matches next to punctuation, quotes, possessives and at both ends of the line', () => {
    const lex = [entry('Kokoro', 'koh-KOH-roh')]
    expect(say('“Kokoro,” said Kokoro’s friend: Kokoro!', lex)).toBe(
      '“koh-KOH-roh,” said koh-KOH-roh’s friend: koh-KOH-roh!',
    )
    expect(say("Kokoro's (Kokoro) -Kokoro- Kokoro...", lex)).toBe(
      "koh-KOH-roh's (koh-KOH-roh) -koh-KOH-roh- koh-KOH-roh...",
    )
  })

  it('follows each entry’s case rule; an entry of the case as written wins over one of any case', () => {
    const lex = [entry('sql', 'sequel'), entry('SQL', 'ess cue ell', { case_sensitive: true })]
    expect(say('SQL, Sql and sql.', lex)).toBe('ess cue ell, sequel and sequel.')
    expect(say('US and us', [entry('US', 'you ess', { case_sensitive: true })])).toBe('you ess and us')
    expect(say('ÉCOLE école', [entry('école', 'ay-coal')])).toBe('ay-coal ay-coal')
  })

  it('takes the longest of overlapping phrases, the first where they only overlap, and any run of spaces', () => {
    const lex = [entry('New York', 'noo york'), entry('New York City', 'the city'), entry('York', 'yawk')]
    expect(say('New York City and New  York and York.', lex)).toBe('the city and noo york and yawk.')
    const chain = [entry('a b', 'X'), entry('b c', 'Y')]
    expect(say('a b c', chain)).toBe('X c')
    expect(say('b c a b', chain)).toBe('Y X')
  })

  it('leaves emotion and sound tags alone and keeps emphasis around respelled words', () => {
    const lex = [entry('sad', 'very sad'), entry('laugh', 'LAFF'), entry('Kokoro', 'koh-KOH-roh')]
    const line = '[sad] I laugh <laugh> at (((Kokoro))) and [SAD] <Laugh>.'
    const sent = say(line, lex)
    expect(sent).toBe('[sad] I LAFF <laugh> at (((koh-KOH-roh))) and [SAD] <Laugh>.')
    expect(findMarkup(sent).map((m) => m.kind)).toEqual(findMarkup(line).map((m) => m.kind))
    // Parentheses that are not emphasis are text.
    expect(say('((Kokoro))', lex)).toBe('((koh-KOH-roh))')
  })

  it('keeps emphasis within the model’s 80 characters when a respelling lengthens it', () => {
    const long = 'x'.repeat(45)
    const sent = say('(((one Kokoro two)))', [entry('Kokoro', `${long} ${long}`)])
    const spans = findMarkup(sent)
    expect(spans.length).toBeGreaterThan(1)
    expect(spans.every((s) => s.kind === 'emphasis')).toBe(true)
    expect(spans.map((s) => s.text).join(' ')).toBe(`one ${long} ${long} two`)
  })

  it('sends phonemes in the local form where honoured, the respelling elsewhere or when an entry has none', () => {
    const lex = [entry('tomato', 'tuh-MAH-toh', { phonemes: 'təˈmɑːtoʊ' }), entry('Siobhan', 'shi-VAWN')]
    expect(say('A tomato for Siobhan.', lex, true)).toBe('A [[təˈmɑːtoʊ]] for shi-VAWN.')
    expect(say('A tomato for Siobhan.', lex, false)).toBe('A tuh-MAH-toh for shi-VAWN.')
    expect(say('[sad] (((tomato)))', lex, true)).toBe('[sad] ((([[təˈmɑːtoʊ]])))')
  })

  it('reports where each match is, for the editor', () => {
    const lexicon = buildLexicon([entry('Kokoro', 'k'), entry('New York', 'ny')])
    expect(
      lexicon.find('[sad] Kokoro in New\u00a0York').map((m) => [m.start, m.end, m.entry.say_as]),
    ).toEqual([
      [6, 12, 'k'],
      [16, 24, 'ny'],
    ])
    expect(buildLexicon([]).find('anything')).toEqual([])
  })

  it('reads word edges by code point: emoji and other symbols are not letters, marks and other scripts are', () => {
    const lex = [entry('Kokoro', 'k'), entry('café', 'cafay')]
    expect(say('😀Kokoro😀 𝒜Kokoro Kokoro\u0301 café😀', lex)).toBe('😀k😀 𝒜Kokoro Kokoro\u0301 cafay😀')
  })

  it('treats regular-expression characters in a word as themselves', () => {
    expect(say('C++ and C and AT&T.', [entry('C++', 'see plus plus'), entry('AT&T', 'A T and T')])).toBe(
      'see plus plus and C and A T and T.',
    )
    expect(say('a.b axb', [entry('a.b', 'dot')])).toBe('dot axb')
  })
})
