/** Readers of `pocketsphinx_batch` output files. Utterance ids are `u<index>` (batch-decoder.ts). */
import type { RecognizedWord } from './recognizer.ts'
import { FRAMES_PER_SECOND, type Utterance } from './utterances.ts'

/** Sentence marks, silence and noise units (`<s>`, `<sil>`, `[NOISE]`, `++BREATH++`): never words. */
const NON_WORD = /^(<.*>|\[.*\]|\+\+.*\+\+)$/
/** Pronunciation variant markers: `the(2)` is "the". */
const VARIANT = /\(\d+\)$/

export const baseWord = (word: string) => word.replace(VARIANT, '')

/** Whether a decoder unit is a word (not a sentence mark, silence or noise). */
export const isWord = (unit: string) => !NON_WORD.test(unit)

/**
 * Words from a CTM file (`-ctm`): `<utt> <channel> <start> <duration> <word> <confidence>`, times in seconds from
 * the utterance's first frame, confidence a posterior probability.
 */
export function parseCtm(text: string, utterances: readonly Utterance[]): RecognizedWord[] {
  const words: RecognizedWord[] = []
  for (const line of text.split('\n')) {
    const [utt, , start, duration, word, confidence] = line.trim().split(/\s+/)
    const utterance = utt ? utterances[Number(utt.slice(1))] : undefined
    if (!(utterance && word && confidence) || NON_WORD.test(word)) continue
    const offset = utterance.startFrame / FRAMES_PER_SECOND
    const end = Math.min(offset + Number(start) + Number(duration), utterance.endFrame / FRAMES_PER_SECOND)
    words.push({
      text: baseWord(word),
      start: round(offset + Number(start)),
      end: round(end),
      confidence: Math.min(1, Math.max(0, Number(confidence))),
    })
  }
  return words
}

/** A word or filler of a segmentation, in frames from the utterance's start, end exclusive. */
export interface SegmentedWord {
  word: string
  startFrame: number
  endFrame: number
}

/**
 * The segmentation of one utterance from a hypseg file (`-hypseg`):
 * `<utt> S <s> T <total> A <acoustic> L <language> (<frame> <acoustic> <language> <word>)* <end frame>`.
 * Null transitions of a grammar (`(NULL)`) are left out; variant markers are removed.
 */
export function parseHypseg(line: string): SegmentedWord[] {
  const fields = line.trim().split(/\s+/)
  const segments = fields.slice(9)
  const words: SegmentedWord[] = []
  for (let i = 0; i + 4 < segments.length; i += 4) {
    const word = segments[i + 3] as string
    if (word === '(NULL)') continue
    words.push({
      word: baseWord(word),
      startFrame: Number(segments[i]),
      endFrame: Number(segments[i + 4]),
    })
  }
  return words
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000
