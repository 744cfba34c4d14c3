import { describe, expect, it } from 'vitest'
import { LINE_ID_PATTERN, type ScriptLine } from '../../../schema/index.ts'
import { linesToText, newLineId, reconcileLines } from './line-ids.ts'

const script = (...texts: string[]): ScriptLine[] => texts.map((text, i) => ({ id: `ln_fixed${i}0`, text }))
const ids = (lines: ScriptLine[]) => lines.map((l) => l.id)
const texts = (lines: ScriptLine[]) => lines.map((l) => l.text)

describe('newLineId', () => {
  it('makes ids the schema accepts, all different', () => {
    const made = Array.from({ length: 1000 }, newLineId)
    for (const id of made) expect(id).toMatch(LINE_ID_PATTERN)
    expect(new Set(made).size).toBe(made.length)
  })
})

describe('linesToText', () => {
  it('joins the lines with line breaks, and reconciling it changes nothing', () => {
    const lines = script('One.', '', 'Three.')
    expect(linesToText(lines)).toBe('One.\n\nThree.')
    const again = reconcileLines(lines, linesToText(lines))
    expect(again).toEqual(lines)
    for (const [i, line] of again.entries()) expect(line).toBe(lines[i])
  })
})

describe('reconcileLines', () => {
  const before = script('First line.', 'Second line.', 'Third line.')

  it('keeps the id and the override of a line typed in', () => {
    const lines = before.map((l, i) => (i === 1 ? { ...l, override: { speed: 1.5 } } : l))
    const next = reconcileLines(lines, 'First line.\nSecond line, edited.\nThird line.')
    expect(ids(next)).toEqual(ids(lines))
    expect(next[1]).toEqual({ id: lines[1]?.id, text: 'Second line, edited.', override: { speed: 1.5 } })
  })

  it('gives a line inserted in the middle a new id and keeps the ids around it', () => {
    const next = reconcileLines(before, 'First line.\nNew line.\nSecond line.\nThird line.')
    expect(texts(next)).toEqual(['First line.', 'New line.', 'Second line.', 'Third line.'])
    expect(next[0]?.id).toBe(before[0]?.id)
    expect(next.slice(2).map((l) => l.id)).toEqual(ids(before).slice(1))
    expect(ids(before)).not.toContain(next[1]?.id)
    expect(next[1]?.id).toMatch(LINE_ID_PATTERN)
  })

  it('drops only the id of a deleted line', () => {
    const next = reconcileLines(before, 'First line.\nThird line.')
    expect(ids(next)).toEqual([before[0]?.id, before[2]?.id])
  })

  it('gives pasted lines new ids and keeps the id of the line pasted into', () => {
    const next = reconcileLines(
      before,
      'First line.\nSecond line. Pasted one.\nPasted two.\nPasted three.\nThird line.',
    )
    expect(next).toHaveLength(5)
    expect(ids(next)).toEqual([before[0]?.id, before[1]?.id, next[2]?.id, next[3]?.id, before[2]?.id])
    expect(new Set(ids(next)).size).toBe(5)
    for (const line of next.slice(2, 4)) expect(ids(before)).not.toContain(line.id)
  })

  it('keeps the id on the first half of a line split with Enter', () => {
    const next = reconcileLines(before, 'First line.\nSecond\n line.\nThird line.')
    expect(texts(next)).toEqual(['First line.', 'Second', ' line.', 'Third line.'])
    expect(next[1]?.id).toBe(before[1]?.id)
    expect(ids(before)).not.toContain(next[2]?.id)
  })

  it('keeps the id with its text when Enter is pressed at the start of a line', () => {
    const next = reconcileLines(before, 'First line.\n\nSecond line.\nThird line.')
    expect(next[2]).toBe(before[1])
    expect(ids(before)).not.toContain(next[1]?.id)
  })

  it('keeps the id of the first line when two lines are joined', () => {
    const next = reconcileLines(before, 'First line.Second line.\nThird line.')
    expect(ids(next)).toEqual([before[0]?.id, before[2]?.id])
  })

  it('lets lines that swapped places keep their ids', () => {
    const lines = script('A.', 'B.', 'C.', 'D.')
    const next = reconcileLines(lines, 'A.\nC.\nB.\nD.')
    expect(ids(next)).toEqual([lines[0]?.id, lines[2]?.id, lines[1]?.id, lines[3]?.id])
  })

  it('never repeats an id when identical lines are added', () => {
    const lines = script('Same.', 'Same.')
    const next = reconcileLines(lines, 'Same.\nSame.\nSame.\nSame.')
    expect(new Set(ids(next)).size).toBe(4)
    expect(ids(next).slice(0, 2)).toEqual(ids(lines))
  })

  it('replaces everything with one empty line when all text is deleted', () => {
    const next = reconcileLines(before, '')
    expect(next).toEqual([{ id: before[0]?.id, text: '' }])
  })
})
