import { describe, expect, it } from 'vitest'
import { EMPTY_EDITS, type LabelEdits, type StoredResult } from '../../../schema/index.ts'
import {
  correctedTurns,
  correctRow,
  countMatches,
  isUnsure,
  mergeTexts,
  replaceAll,
  setTurnText,
  setTurnTiming,
  timedWords,
  turnsToAlign,
  wordsOf,
} from './corrections.ts'
import { split } from './labels.ts'
import { entriesOf } from './turns.ts'

const words = [
  ['so', 0.1, 0.3, 0.95],
  ['what', 0.4, 0.7, 0.05],
  ['do', 0.8, 1.0, 0.9],
  ['you', 1.1, 1.3, 0.9],
  ['think', 1.4, 1.9, 0.9],
  ['i', 3.0, 3.1, 0.9],
  ['think', 3.2, 3.6, 0.9],
  ['the', 3.7, 3.8, 0.9],
  ['cat', 3.9, 4.3, 0.2],
] as const
const result: StoredResult = {
  text: 'so what do you think i think the cat',
  warnings: [],
  duration: 5,
  words: words.map(([word, start, end, confidence]) => ({ word, start, end, confidence })),
  diarization: {
    status: 'completed',
    speakers: ['speaker_0', 'speaker_1'],
    segments: [],
    turns: [
      { speaker: 'speaker_0', start: 0, end: 2, text: 'so what do you think' },
      { speaker: 'speaker_1', start: 2.8, end: 4.5, text: 'i think the cat' },
    ],
  },
}
const { entries } = entriesOf(result)
const all = timedWords(result)

describe('the recognizer’s words', () => {
  it('carry their times and the decoder’s confidence; unsure ones are marked', () => {
    const first = wordsOf(entries[0] as (typeof entries)[0], all)
    expect(first.map((w) => [w.text, w.start, w.confidence])).toEqual(
      words.slice(0, 5).map(([t, s, , c]) => [t, s, c]),
    )
    expect(first.filter(isUnsure).map((w) => w.text)).toEqual(['what'])
  })

  it('for a live session without words, are spread over each segment', () => {
    const live = timedWords({
      text: 'hello there general kenobi',
      warnings: [],
      segments: [
        { id: 0, start: 1, end: 2, text: 'hello there' },
        { id: 1, start: 5, end: 6, text: 'general kenobi' },
      ],
    })
    expect(live.map((w) => [w.text, w.start])).toEqual([
      ['hello', 1],
      ['there', 1 + 6 / 11],
      ['general', 5],
      ['kenobi', 5 + 8 / 14],
    ])
    expect(live.every((w) => w.confidence === undefined)).toBe(true)
  })
})

describe('corrections', () => {
  const corrected = setTurnText(EMPTY_EDITS, entries, 1, '  I think  the hat ')

  it('are kept tidy by turn, and dropped again when the text reads as the machine’s', () => {
    expect(corrected.texts).toEqual({ '1': 'I think the hat' })
    expect(setTurnText(corrected, entries, 1, 'i think the cat')).toEqual(EMPTY_EDITS)
  })

  it('keep the times of unchanged words and time the changed one over the word it replaced', () => {
    const rows = correctedTurns(entries, corrected, all)
    expect(rows[0]).toBe(entries[0])
    const turn = wordsOf(rows[1] as (typeof rows)[0], all)
    expect(turn.map((w) => [w.text, w.start, w.edited])).toEqual([
      ['I', 3.0, true],
      ['think', 3.2, false],
      ['the', 3.7, false],
      ['hat', 3.9, true],
    ])
    // A reviewer's word is not one the recognizer was unsure of.
    expect(turn.some(isUnsure)).toBe(false)
  })

  it('take forced-alignment times for new words while the text is the one they were found for', () => {
    const inserted = setTurnText(EMPTY_EDITS, entries, 1, 'i think that the cat')
    const spans = [
      [3.0, 3.1],
      [3.2, 3.6],
      [3.62, 3.68],
      [3.7, 3.8],
      [3.9, 4.3],
    ] as const
    const timed = setTurnTiming(inserted, 1, 'i think that the cat', spans)
    const turn = (edits: LabelEdits) =>
      wordsOf(correctedTurns(entries, edits, all)[1] as (typeof entries)[0], all)
    expect(turn(timed)[2]).toMatchObject({ text: 'that', start: 3.62, end: 3.68 })
    // Proportional without it: the pause between "think" and "the".
    expect(turn(inserted)[2]).toMatchObject({ text: 'that', start: 3.6 })
    // Too late for a text corrected again, or not fitting its words: nothing kept.
    expect(setTurnTiming(inserted, 1, 'i think the cat', spans)).toBe(inserted)
    expect(setTurnTiming(inserted, 1, 'i think that the cat', spans.slice(1))).toBe(inserted)
    // Correcting the text again drops the timing; typing back the machine's text drops both.
    expect(setTurnText(timed, entries, 1, 'i think that the hat').timings).toBeUndefined()
    expect(setTurnText(timed, entries, 1, 'i think the cat')).toEqual(EMPTY_EDITS)
    expect(setTurnText(timed, entries, 0, 'so what do you think now').timings).toEqual(timed.timings)
  })

  it('ask forced alignment for each turn whose text changed and has no times for it', () => {
    const one = setTurnText(EMPTY_EDITS, entries, 1, 'i think that the cat')
    expect(turnsToAlign(EMPTY_EDITS, one, entries)).toEqual([1])
    const both = setTurnText(one, entries, 0, 'so what do you think now')
    expect(turnsToAlign(one, both, entries)).toEqual([0])
    const timed = setTurnTiming(one, 1, 'i think that the cat', [
      [3, 3.1],
      [3.2, 3.6],
      [3.6, 3.7],
      [3.7, 3.8],
      [3.9, 4.3],
    ])
    expect(turnsToAlign(EMPTY_EDITS, timed, entries)).toEqual([])
    expect(turnsToAlign(one, EMPTY_EDITS, entries)).toEqual([])
  })

  it('of one part of a split turn keep the other part’s words', () => {
    const edits: LabelEdits = split(EMPTY_EDITS, entries[0] as (typeof entries)[0], 1.05, 'speaker_1')
    const rows = correctedTurns(entries, edits, all)
    expect(rows.map((r) => r.text)).toEqual(['so what do', 'you think', 'i think the cat'])
    const next = correctRow(edits, entries, rows, rows[1] as (typeof rows)[0], 'you thought')
    expect(next.texts).toEqual({ '0': 'so what do you thought' })
    expect(correctedTurns(entries, next, all).map((r) => r.text)).toEqual([
      'so what do',
      'you thought',
      'i think the cat',
    ])
  })
})

describe('find and replace', () => {
  const rows = correctedTurns(entries, EMPTY_EDITS, all)

  it('counts matches with or without case and whole words', () => {
    expect(countMatches(rows, 'think', { wholeWord: false, matchCase: false })).toBe(2)
    expect(countMatches(rows, 'Think', { wholeWord: false, matchCase: true })).toBe(0)
    expect(countMatches(rows, 'hin', { wholeWord: false, matchCase: false })).toBe(2)
    expect(countMatches(rows, 'hin', { wholeWord: true, matchCase: false })).toBe(0)
    expect(countMatches(rows, '', { wholeWord: false, matchCase: false })).toBe(0)
    expect(countMatches(rows, 'a.', { wholeWord: false, matchCase: false })).toBe(0)
  })

  it('replaces every match as one edit', () => {
    const { edits, replaced } = replaceAll(EMPTY_EDITS, entries, rows, 'think', 'believe', {
      wholeWord: true,
      matchCase: false,
    })
    expect(replaced).toBe(2)
    expect(edits.texts).toEqual({ '0': 'so what do you believe', '1': 'i believe the cat' })
    expect(
      replaceAll(EMPTY_EDITS, entries, rows, 'dog', 'x', { wholeWord: false, matchCase: false }),
    ).toEqual({
      edits: EMPTY_EDITS,
      replaced: 0,
    })
  })
})

describe('after a conflict', () => {
  const base: LabelEdits = { ...EMPTY_EDITS, texts: { '0': 'base zero', '3': 'base three' } }

  it('keeps this reviewer’s corrections of turns the other left alone, theirs elsewhere, and names the clashes', () => {
    const mine: LabelEdits = { ...base, texts: { '0': 'mine zero', '1': 'mine one', '3': 'base three' } }
    const theirs: LabelEdits = {
      ...base,
      names: { speaker_0: 'Ann' },
      texts: { '0': 'their zero', '2': 'their two' },
    }
    const { edits, kept, clashed } = mergeTexts(base, mine, theirs)
    // Turn 3: they removed the correction and this reviewer left it: theirs (removed) stands.
    expect(edits).toEqual({ ...theirs, texts: { '0': 'their zero', '1': 'mine one', '2': 'their two' } })
    expect(kept).toEqual([1])
    expect(clashed).toEqual([0])
  })

  it('carries the timing of a correction it keeps, and drops theirs of a turn it takes from this reviewer', () => {
    const mine: LabelEdits = {
      ...base,
      texts: { ...base.texts, '1': 'mine one' },
      timings: {
        '1': {
          text: 'mine one',
          spans: [
            [1, 1.2],
            [1.3, 1.5],
          ],
        },
      },
    }
    const theirs: LabelEdits = { ...base, timings: { '1': { text: 'old', spans: [[1, 2]] } } }
    expect(mergeTexts(base, mine, theirs).edits.timings).toEqual(mine.timings)
    const untimed: LabelEdits = { ...base, texts: { ...base.texts, '1': 'mine one' } }
    expect(mergeTexts(base, untimed, theirs).edits.timings).toBeUndefined()
  })

  it('keeps a removal this reviewer made, and changes nothing when there is nothing of theirs to keep', () => {
    const removed: LabelEdits = { ...base, texts: { '0': 'base zero' } }
    expect(mergeTexts(base, removed, base).edits.texts).toEqual({ '0': 'base zero' })
    expect(mergeTexts(base, base, EMPTY_EDITS)).toEqual({ edits: EMPTY_EDITS, kept: [], clashed: [] })
  })
})
