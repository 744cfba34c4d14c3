import { describe, expect, it } from 'vitest'
import type { ScriptLine } from '../../../schema/index.ts'
import { changedLines, isLocked, lockedLineEdited, textChanged } from './take-currency.ts'
import { createTakesStore, type Take } from './takes-store.ts'

const REQUEST = { model: 'svc-tts-2-latest', voice: 'alloy' } as const

/** The store's takes after making one take per [line, text, status]. */
function takesOf(made: Array<[string, string, 'complete' | 'incomplete' | 'recording']>): Take[] {
  const store = createTakesStore()
  const s = store.getState()
  for (const [lineId, text, status] of made) {
    const id = s.begin(lineId, text, REQUEST)
    s.append(id, new Int16Array(2400).fill(500))
    if (status !== 'recording') s.finish(id, status)
  }
  return store.getState().takes
}

const line = (id: string, text: string, locked?: true): ScriptLine => ({
  id,
  text,
  ...(locked ? { locked } : {}),
})

describe('a take knows when its line changed', () => {
  it('is changed when made from other text than the line holds now', () => {
    expect(textChanged({ text: 'Hello there.' }, { text: 'Hello there.' })).toBe(false)
    expect(textChanged({ text: 'Hello there.' }, { text: 'Hello there!' })).toBe(true)
    expect(textChanged({ text: 'Hello there.' }, { text: 'Hello, there.' })).toBe(true)
    // A selection's take is of other text than its line too.
    expect(textChanged({ text: 'there' }, { text: 'Hello there.' })).toBe(true)
  })
})

describe('changedLines', () => {
  const lines = [
    line('ln_aaaaaa', 'Unchanged.'),
    line('ln_bbbbbb', 'Edited after its take.'),
    line('ln_cccccc', 'Never played.'),
    line('ln_dddddd', '   '),
    line('ln_eeeeee', 'Locked and edited.', true),
    line('ln_ffffff', 'Only a broken take.'),
    line('ln_gggggg', 'Being made now.'),
  ]
  const takes = takesOf([
    ['ln_aaaaaa', 'Unchanged.', 'complete'],
    ['ln_bbbbbb', 'Before the edit.', 'complete'],
    ['ln_eeeeee', 'Before the edit.', 'complete'],
    ['ln_ffffff', 'Only a broken take.', 'incomplete'],
    ['ln_gggggg', 'Being made now.', 'recording'],
    // Another script's line with the same text does not count for this one.
    ['ln_zzzzzz', 'Never played.', 'complete'],
  ])

  it('picks the unlocked, non-empty lines with no take of their current text, in script order', () => {
    expect(changedLines(lines, takes).map((l) => l.id)).toEqual(['ln_bbbbbb', 'ln_cccccc', 'ln_ffffff'])
  })

  it('is empty once each of them has a take of its text; an older take of other text does not matter', () => {
    const after = takesOf([
      ['ln_aaaaaa', 'Unchanged.', 'complete'],
      ['ln_bbbbbb', 'Before the edit.', 'complete'],
      ['ln_bbbbbb', 'Edited after its take.', 'complete'],
      ['ln_cccccc', 'Never played.', 'complete'],
      ['ln_ffffff', 'Only a broken take.', 'complete'],
      ['ln_gggggg', 'Being made now.', 'complete'],
    ])
    expect(changedLines(lines, after)).toEqual([])
  })

  it('does not count a take whose audio was erased', () => {
    const store = createTakesStore()
    const s = store.getState()
    const id = s.begin('ln_aaaaaa', 'Unchanged.', REQUEST)
    s.append(id, new Int16Array(10))
    s.finish(id, 'complete')
    s.markErased(id, { at: 1, reason: 'consent_revoked' })
    expect(changedLines([lines[0] as ScriptLine], store.getState().takes).map((l) => l.id)).toEqual([
      'ln_aaaaaa',
    ])
  })
})

describe('a locked line is read-only', () => {
  const before = [line('ln_aaaaaa', 'Free.'), line('ln_bbbbbb', 'Kept as it is.', true)]

  it('refuses an edit that changes or removes a locked line, naming it', () => {
    expect(
      lockedLineEdited(before, [before[0] as ScriptLine, line('ln_bbbbbb', 'Kept as it was.', true)]),
    ).toEqual({
      line: before[1],
      number: 2,
    })
    expect(lockedLineEdited(before, [before[0] as ScriptLine])?.number).toBe(2)
  })

  it('lets every other edit through: other lines, lines added around it', () => {
    expect(
      lockedLineEdited(before, [line('ln_aaaaaa', 'Free to change.'), before[1] as ScriptLine]),
    ).toBeNull()
    expect(
      lockedLineEdited(before, [
        line('ln_new000', 'A new first line.'),
        ...before,
        line('ln_new001', 'And a last.'),
      ]),
    ).toBeNull()
    // Unlocked, it can change.
    expect(lockedLineEdited([line('ln_bbbbbb', 'x')], [line('ln_bbbbbb', 'y')])).toBeNull()
    expect(isLocked(before[1] as ScriptLine)).toBe(true)
  })
})
