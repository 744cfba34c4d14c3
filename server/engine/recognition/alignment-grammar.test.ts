import { describe, expect, it } from 'vitest'
import { alignmentLookups, buildAlignmentGrammar, readAlignment } from './alignment-grammar.ts'
import type { SegmentedWord } from './decoder-output.ts'

const DICT = new Map([
  ['we', ['we W IY']],
  ['meet', ['meet M IY T']],
  ['at', ['at AE T', 'at(2) AH T']],
  ['noon', ['noon N UW N']],
  ['i', ['i AY']],
  ['am', ['am AE M']],
])

const seg = (word: string, startFrame: number, endFrame: number): SegmentedWord => ({
  word,
  startFrame,
  endFrame,
})

describe('the forced-alignment grammar', () => {
  it('requires every token in order, with optional gaps between, and holds only the words it uses', () => {
    const grammar = buildAlignmentGrammar(['We', 'meet', 'at', 'noon.'], DICT)
    expect(grammar.jsgf).toContain(
      'public <alignment> = [<gap>] we [<gap>] meet [<gap>] at [<gap>] noon [<gap>];',
    )
    expect(grammar.tokensPerWord).toEqual([1, 1, 1, 1])
    expect(grammar.dictionary).toContain('at(2) AH T')
    expect(grammar.dictionary).not.toContain('AY')
  })

  it('says an unknown word as spoken noise and a contraction it cannot find as its expansion', () => {
    const grammar = buildAlignmentGrammar(["I'm", 'Zxqv', '—'], DICT)
    expect(grammar.tokensPerWord).toEqual([2, 1, 0])
    expect(grammar.jsgf).toContain('i [<gap>] am [<gap>] x_unknown [<gap>];')
    expect(grammar.dictionary).toContain('x_unknown +SPN+')
    expect([...alignmentLookups(["I'm", 'noon'])].sort()).toEqual(['am', 'i', "i'm", 'noon'])
  })

  it('gives each written word the span of its tokens, gaps left out, and a wordless one an instant', () => {
    const grammar = buildAlignmentGrammar(["I'm", '—', 'at', 'noon'], DICT)
    const segments = [seg('_sil', 0, 10), seg('i', 10, 20), seg('am', 20, 35), seg('_noise', 35, 50)]
    segments.push(seg('at', 50, 60), seg('noon', 60, 90), seg('_sil', 90, 100))
    expect(readAlignment(grammar, segments, 100)).toEqual([
      { start: 1.1, end: 1.35 },
      { start: 1.35, end: 1.35 },
      { start: 1.5, end: 1.6 },
      { start: 1.6, end: 1.9 },
    ])
  })

  it('gives nothing when the decoder stopped short of the grammar', () => {
    const grammar = buildAlignmentGrammar(['we', 'meet'], DICT)
    expect(readAlignment(grammar, [seg('_sil', 0, 10), seg('we', 10, 20)])).toBeNull()
    expect(readAlignment(buildAlignmentGrammar(['—'], DICT), [])).toBeNull()
  })
})
