import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { PlsError, readPls, writePls } from './pls.ts'

/** The PLS reader and writer, against files in other tools' shapes (pls-fixtures/README.md says whose). */

const fixture = (name: string) => readFileSync(new URL(`./pls-fixtures/${name}`, import.meta.url), 'utf8')

function refusal(source: string): PlsError {
  try {
    readPls(source)
  } catch (err) {
    if (err instanceof PlsError) return err
    throw err
  }
  throw new Error('read without an error')
}

describe('reading PLS', () => {
  it('reads an ElevenLabs-style dictionary: IPA between slashes, aliases, comments', () => {
    const lexicon = readPls(fixture('elevenlabs-style.pls'))
    expect(lexicon.language).toBe('en-US')
    expect(lexicon.entries).toEqual([
      { text: 'Kokoro', sayAs: 'Kokoro', phonemes: 'kəˈkɔːɹoʊ', caseSensitive: false },
      { text: 'Nginx', sayAs: 'engine x', phonemes: null, caseSensitive: false },
      { text: 'Siobhan', sayAs: 'Siobhan', phonemes: 'ʃɪˈvɔːn', caseSensitive: false },
    ])
    expect(lexicon.skipped).toEqual([])
  })

  it('makes an entry of each grapheme of a lexeme, trimmed', () => {
    const { entries, language } = readPls(fixture('several-graphemes.pls'))
    expect(language).toBe('en')
    expect(entries.map((e) => [e.text, e.phonemes])).toEqual([
      ['Colour', 'ˈkʌlə'],
      ['Color', 'ˈkʌlə'],
      ['Tomato', 'təˈmɑːtoʊ'],
    ])
  })

  it('reads what the W3C examples use, and says which phonemes it did not take', () => {
    const { entries, skipped } = readPls(fixture('w3c-features.pls'))
    expect(entries).toEqual([
      { text: 'W3C', sayAs: 'World Wide Web Consortium', phonemes: null, caseSensitive: false },
      { text: 'New York City', sayAs: 'new york city', phonemes: null, caseSensitive: false },
      { text: 'AT&T', sayAs: 'A T & T', phonemes: 'ˌeɪtiːənˈtiː', caseSensitive: false },
    ])
    expect(skipped).toEqual(['Line 13: phonemes in the “x-sampa” alphabet (only IPA is read).'])
  })

  it('refuses a mismatched closing tag on the line it is on', () => {
    const err = refusal(fixture('mismatched.pls'))
    expect(err.line).toBe(16)
    expect(err.message).toBe('Line 16: </grapheme> closes <phoneme> (opened on line 16).')
  })

  it('refuses what is not a lexicon, naming the line', () => {
    const head =
      '<?xml version="1.0"?>\n<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon">\n'
    const cases: Array<[string, number, string]> = [
      ['', 1, 'no <lexicon> element'],
      ['<speak>hi</speak>', 1, 'not <lexicon>'],
      ['<lexicon xmlns="urn:other"/>', 1, 'namespace urn:other'],
      ['<lexicon version="2.0"/>', 1, 'version 2.0'],
      [`${head}<lexeme>\n<alias>x</alias>\n</lexeme>\n</lexicon>`, 3, 'holds no <grapheme>'],
      [`${head}<lexeme>\n<grapheme>x</grapheme>\n</lexeme>\n</lexicon>`, 3, 'neither <alias> nor <phoneme>'],
      [`${head}<lexeme><grapheme> </grapheme><alias>x</alias></lexeme></lexicon>`, 3, '<grapheme> is empty'],
      [`${head}<lexeme><grapheme>a & b</grapheme></lexeme></lexicon>`, 3, '“&” begins no entity'],
      [`${head}<lexeme><grapheme>&nbsp;</grapheme></lexeme></lexicon>`, 3, 'unknown entity &nbsp;'],
      [`${head}\n\n<lexeme><grapheme>x</grapheme><alias>y</alias></lexeme>`, 2, '<lexicon> is never closed'],
      [`<!DOCTYPE lexicon [<!ENTITY x "y">]>\n<lexicon/>`, 1, 'DOCTYPE'],
      [`${head}</lexicon>\n<lexicon/>`, 4, 'a second root element'],
      [`${head}<lexeme a="1"b="2"/></lexicon>`, 3, 'need spaces'],
      [`${head}<lexeme a="1" a="2"/></lexicon>`, 3, 'given twice'],
      [`${head}<lexeme a=1/></lexicon>`, 3, 'needs ="…"'],
      [`${head}<lexeme><1/></lexeme></lexicon>`, 3, '“<” begins no element'],
      [`${head}<!-- never closed`, 3, 'comment is never closed'],
      ['stray text <lexicon/>', 1, 'text outside'],
    ]
    for (const [source, line, words] of cases) {
      const err = refusal(source)
      expect(err.message, source).toContain(words)
      expect(err.line, source).toBe(line)
    }
  })
})

describe('writing PLS', () => {
  it('round-trips entries, with the case rule and characters XML escapes', () => {
    const entries = [
      { text: 'AT&T', sayAs: 'A T and T', phonemes: null, caseSensitive: true },
      { text: 'Kokoro', sayAs: 'koh-KOH-roh', phonemes: 'kəˈkɔːɹoʊ', caseSensitive: false },
      { text: '"quoted"', sayAs: 'it’s', phonemes: null, caseSensitive: false },
    ]
    const file = writePls(entries, 'en-GB')
    expect(file.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<lexicon version="1.0"')).toBe(true)
    expect(file).toContain('alphabet="ipa" xml:lang="en-GB"')
    expect(readPls(file)).toEqual({ language: 'en-GB', entries, skipped: [] })
  })

  it('writes files another tool’s reader takes: every lexeme has a grapheme and an alias', () => {
    const file = writePls([{ text: 'Nginx', sayAs: 'engine x', phonemes: null, caseSensitive: false }])
    expect(file).toContain(
      '<lexeme>\n    <grapheme>Nginx</grapheme>\n    <alias>engine x</alias>\n  </lexeme>',
    )
    // Without this studio's namespace, its case attribute means nothing: another tool's file matches any case.
    const foreign = file.replace(
      'xmlns:studio="urn:speech-studio:pronunciations"',
      'xmlns:studio="urn:other"',
    )
    expect(
      readPls(foreign.replace('<lexeme>', '<lexeme studio:case="as-written">')).entries[0]?.caseSensitive,
    ).toBe(false)
  })
})
