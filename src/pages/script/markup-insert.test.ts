import { describe, expect, it } from 'vitest'
import { insertTag, type TextEdit, toggleEmphasis } from './markup-insert.ts'

/** The edit written with | for the caret, or [ ] around the selection. */
function show({ text, selectionStart, selectionEnd }: TextEdit): string {
  if (selectionStart === selectionEnd) return `${text.slice(0, selectionStart)}|${text.slice(selectionStart)}`
  return `${text.slice(0, selectionStart)}{${text.slice(selectionStart, selectionEnd)}}${text.slice(selectionEnd)}`
}

describe('insertTag', () => {
  it.each([
    ['', 0, '[sad]', '[sad]|'],
    ['I lost it.', 0, '[sad]', '[sad] |I lost it.'],
    ['Well then', 4, '<sigh>', 'Well <sigh>| then'],
    ['Well then', 5, '<sigh>', 'Well <sigh> |then'],
    ['Done', 4, '<laugh>', 'Done <laugh>|'],
    ['Done.', 4, '<laugh>', 'Done <laugh>|.'],
    ['(((no way)))', 3, '<gasp>', '(((<gasp> |no way)))'],
  ])('%j at %i with %s', (text, at, tag, expected) => {
    expect(show(insertTag(text, at, tag))).toBe(expected)
  })
})

describe('toggleEmphasis', () => {
  it.each([
    ['I really mean it', 2, 8, 'I (((really))) mean it', 'I ((({really}))) mean it'],
    ['I really mean it', 1, 9, 'spaces stay outside', 'I ((({really}))) mean it'],
    ['I mean it', 2, 2, 'an empty one at the caret', 'I (((|)))mean it'],
    ['I (((really))) mean it', 5, 11, 'selected emphasized words lose it', 'I {really} mean it'],
  ])('%j from %i to %i: %s', (text, start, end, _what, expected) => {
    expect(show(toggleEmphasis(text, start, end))).toBe(expected)
  })
})
