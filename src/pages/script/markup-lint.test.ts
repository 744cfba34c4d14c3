import { describe, expect, it } from 'vitest'
import type { ModelId } from '../../../schema/index.ts'
import { highlightLine, lintScript } from './markup-lint.ts'

const V2: ModelId = 'svc-tts-2-latest'
const a80 = 'a'.repeat(80)
const a81 = 'a'.repeat(81)

/** [line, start, end, severity, a fragment of the message] */
type Expected = [number, number, number, 'error' | 'warning' | 'info', string]

const lintCases: [string, ModelId, string[], Expected[]][] = [
  ['a known emotion tag', V2, ['[sad] I lost it.'], []],
  ['tags in any case', V2, ['[SAD] I lost it. <Laugh> [Joyful] Found it!'], []],
  [
    'an unknown tag',
    V2,
    ['[happy] Hi.'],
    [[0, 0, 7, 'warning', '[happy] is not a tag: it will be spoken as words']],
  ],
  ['an unknown angle tag', V2, ['Hi <cough> there.'], [[0, 3, 10, 'warning', '<cough> is not a tag']]],
  [
    'an emotion in angle brackets',
    V2,
    ['<sad> Hi.'],
    [[0, 0, 5, 'warning', 'Emotion tags use square brackets: [sad]']],
  ],
  [
    'a sound in square brackets',
    V2,
    ['Hi [LAUGH]'],
    [[0, 3, 10, 'warning', 'Sound tags use angle brackets: <laugh>']],
  ],
  ['a tag with spaces', V2, ['[ sad ] Hi.'], [[0, 0, 7, 'warning', 'Write it without spaces: [sad]']]],
  [
    'any other bracketed text',
    V2,
    ['As noted [citation needed].'],
    [[0, 9, 26, 'warning', 'will be spoken']],
  ],
  ['angle brackets in prose', V2, ['If a < b and c > d then stop.'], []],
  ['emphasis of exactly 80 characters', V2, [`(((${a80})))`], []],
  [
    'emphasis of 81 characters',
    V2,
    [`(((${a81})))`],
    [[0, 0, 87, 'error', 'Emphasis holds 81 characters, more than 80: so it is read as written']],
  ],
  [
    'two parentheses',
    V2,
    ['so ((two)) here'],
    [[0, 3, 10, 'error', '((two)) has 2 parentheses on each side']],
  ],
  ['four parentheses', V2, ['((((four))))'], [[0, 0, 12, 'error', 'has 4 parentheses on each side']]],
  ['three opening, four closing', V2, ['(((three))))'], [[0, 0, 12, 'error', 'has 3 opening and 4 closing']]],
  ['unclosed emphasis', V2, ['I (((really) mean it'], [[0, 2, 5, 'error', '((( is never closed']]],
  ['a closing run with no opening', V2, ['Fine))) ok'], [[0, 4, 7, 'error', '))) closes no emphasis']]],
  [
    'parentheses inside emphasis',
    V2,
    ['(((a (b) c)))'],
    [[0, 0, 13, 'error', 'Emphasis cannot hold parentheses']],
  ],
  ['empty emphasis', V2, ['Say ((()))'], [[0, 4, 10, 'info', 'Empty emphasis']]],
  ['nested parentheses in prose', V2, ['(see (this)) and ((a) (b))'], []],
  ['a sound tag inside emphasis', V2, ['(((no <gasp> way)))'], []],
  [
    'an unknown tag inside emphasis',
    V2,
    ['(((no [happy] way)))'],
    [[0, 6, 13, 'warning', '[happy] is not a tag']],
  ],
  [
    'emphasis across lines',
    V2,
    ['It is (((so', 'big))) now'],
    [
      [0, 6, 11, 'error', 'Emphasis spans lines 1 to 2'],
      [1, 0, 6, 'error', 'Emphasis spans lines 1 to 2'],
    ],
  ],
  [
    'unclosed through lines without parentheses',
    V2,
    ['(((open', 'plain', ''],
    [[0, 0, 3, 'error', 'never closed']],
  ],
  [
    'unclosed, then another attempt on the next line',
    V2,
    ['(((a', '((b)) c'],
    [
      [0, 0, 3, 'error', 'never closed'],
      [1, 0, 5, 'error', 'has 2 parentheses on each side'],
    ],
  ],
  [
    'adjacent emotion tags',
    V2,
    ['[sad][angry] Go.'],
    [[0, 0, 5, 'info', '[sad] colours no words: [angry] takes over']],
  ],
  [
    'an emotion at a sentence end',
    V2,
    ['I am fine [sad].'],
    [[0, 10, 15, 'info', 'which ends right after it']],
  ],
  ['an emotion mid-sentence', V2, ['I am [sad] fine.'], [[0, 5, 10, 'info', 'stands mid-sentence']]],
  ['an emotion before its sentence', V2, ['Done. [sad] It ended.', 'Done.[angry] Go!'], []],
  ['a sound tag before an emotion tag', V2, ['<sigh> [sad] I know.'], []],
  [
    'tags under a 0.8 model',
    'svc-tts-mini-0.8',
    ['[sad] Hi <laugh>'],
    [
      [0, 0, 5, 'warning', 'svc-tts-mini-0.8 reads markup aloud: [sad] will be spoken'],
      [0, 9, 16, 'warning', 'svc-tts-mini-0.8 reads markup aloud: <laugh> will be spoken'],
    ],
  ],
  [
    'emphasis under a 0.8 model',
    'svc-tts-nano-0.8',
    ['(((really)))'],
    [[0, 0, 12, 'info', 'has no emphasis']],
  ],
  [
    'bad emphasis under a 0.8 model',
    'svc-tts-micro-0.8',
    ['((two))'],
    [[0, 0, 7, 'info', 'has no emphasis']],
  ],
  [
    'unknown tags under a 0.8 model',
    'svc-tts-mini-0.8',
    ['[happy] ok'],
    [[0, 0, 7, 'warning', 'reads markup aloud: [happy] will be spoken']],
  ],
]

describe('lintScript', () => {
  it.each(lintCases)('%s', (_name, model, texts, expected) => {
    const lines = texts.map((text, i) => ({ id: `ln_line${i}00`, text }))
    const issues = lintScript(lines, model)
    expect(issues.map((i) => [i.lineIndex, i.start, i.end, i.severity])).toEqual(
      expected.map(([line, start, end, severity]) => [line, start, end, severity]),
    )
    issues.forEach((issue, n) => {
      expect(issue.message).toContain(expected[n]?.[4])
      expect(issue.lineId).toBe(lines[issue.lineIndex]?.id)
    })
  })
})

const highlightCases: [string, ModelId, string[]][] = [
  [
    '[sad] Hi (((you))) <laugh>',
    V2,
    ['emotion:[sad]', 'text: Hi ', 'emphasis:(((you)))', 'text: ', 'sound:<laugh>'],
  ],
  ['[Sad][ANGRY]', V2, ['emotion:[Sad]', 'emotion:[ANGRY]']],
  ['(((no <gasp> way)))', V2, ['emphasis:(((no ', 'sound:<gasp>', 'emphasis: way)))']],
  ['[happy] ok', V2, ['spoken-tag:[happy]', 'text: ok']],
  ['a ((two)) b', V2, ['text:a ', 'bad-emphasis:((two))', 'text: b']],
  ['end (((open', V2, ['text:end ', 'bad-emphasis:(((', 'text:open']],
  [`(((${a81})))`, V2, [`bad-emphasis:(((${a81})))`]],
  ['[sad] (((x)))', 'svc-tts-mini-0.8', ['spoken-tag:[sad]', 'text: ', 'bad-emphasis:(((x)))']],
  ['', V2, []],
]

describe('highlightLine', () => {
  it.each(highlightCases)('%j', (text, model, expected) => {
    const segments = highlightLine(text, model)
    expect(segments.map((s) => `${s.kind}:${s.text}`)).toEqual(expected)
    expect(segments.map((s) => s.text).join('')).toBe(text)
  })

  it('covers every line of the lint table exactly', () => {
    for (const [, model, texts] of lintCases)
      for (const text of texts)
        expect(
          highlightLine(text, model)
            .map((s) => s.text)
            .join(''),
        ).toBe(text)
  })
})

describe('lintScript: speakers the cast lacks', () => {
  const lines = (...texts: string[]) => texts.map((text, i) => ({ id: `ln_${i}`, text }))
  const speakerIssues = (texts: string[], cast: { name: string }[]) =>
    lintScript(lines(...texts), V2, cast)
      .filter((i) => i.speaker !== undefined)
      .map((i) => [i.lineIndex, i.start, i.end, i.severity, i.speaker])

  it('flags each name the cast does not have, on its name, and never a member', () => {
    const cast = [{ name: 'Alice' }]
    expect(speakerIssues(['ALICE: Hi.', '  Bob: Hello.', 'Note: prose.', 'plain'], cast)).toEqual([
      [1, 2, 5, 'warning', 'Bob'],
      [2, 0, 4, 'warning', 'Note'],
    ])
    const [issue] = lintScript(lines('Bob: Hello.'), V2, cast)
    expect(issue?.message).toBe(
      'Bob is not in the cast: the line is read in the script’s voice, “Bob:” included. Add Bob to the cast to give the line their voice',
    )
  })

  it('leaves prose alone in a script without a cast', () => {
    expect(speakerIssues(['Note: this is prose.', 'More prose.'], [])).toEqual([])
    expect(speakerIssues(['Note: one.', 'Note: two.'], [])).toEqual([])
  })

  it('flags a script without a cast that reads as a dialogue: two names, or one in capitals', () => {
    expect(speakerIssues(['Alice: Hi.', 'Bob: Hello.'], [])).toEqual([
      [0, 0, 5, 'warning', 'Alice'],
      [1, 0, 3, 'warning', 'Bob'],
    ])
    expect(speakerIssues(['NARRATOR: Once.', 'It was dark.'], [])).toEqual([[0, 0, 8, 'warning', 'NARRATOR']])
    expect(lintScript(lines('NARRATOR: Once.'), V2)[0]?.message).toContain(
      'NARRATOR looks like a speaker, but the script has no cast',
    )
  })

  it('still checks the markup after a speaker’s prefix, where it stands in the line', () => {
    const issues = lintScript(lines('Alice: [happy] Hi.'), V2, [{ name: 'Alice' }])
    expect(issues.map((i) => [i.start, i.end, i.severity])).toEqual([[7, 14, 'warning']])
  })

  it('reads an emotion tag right after a member’s prefix as starting the line, which is not sent', () => {
    expect(lintScript(lines('Alice: [sad] I lost it.'), V2, [{ name: 'Alice' }])).toEqual([])
    // A prefix the cast lacks is spoken, so the tag does stand mid-sentence there.
    expect(lintScript(lines('Alice: [sad] I lost it.'), V2, [{ name: 'Bob' }]).map((i) => i.message)).toEqual(
      [
        expect.stringContaining('Alice is not in the cast'),
        expect.stringContaining('[sad] stands mid-sentence'),
      ],
    )
  })
})
