/**
 * Live words (docs/transcription.md "Live words"): which words of a decode of the turn that goes on are new, and which
 * of them two decodes in a row agree on. Session samples are 16 kHz; word times are seconds on the session clock.
 */
import type { RecognizedWord, Transcription } from '../../../engine/recognition/index.ts'
import { ENGINE_RATE } from './pcm-input.ts'

/**
 * The words of a decode of audio that began at session sample `from`, on the session clock in seconds, that lie after
 * session sample `sentUpTo`: a word counts there when its middle does (a word the earlier decode placed across the
 * line is sent once), and it is made to start no earlier.
 */
export function wordsAfter(result: Transcription, from: number, sentUpTo: number): RecognizedWord[] {
  const offset = from / ENGINE_RATE
  const line = sentUpTo / ENGINE_RATE
  return result.words
    .map((w) => ({ ...w, start: offset + w.start, end: offset + w.end }))
    .filter((w) => (w.start + w.end) / 2 >= line)
    .map((w) => ({ ...w, start: Math.max(w.start, line) }))
}

/**
 * The words a decode confirms: those two decodes in a row agree on (the longest common beginning of their words, by
 * text: the "local agreement" rule of streaming recognizers), then any that follow in the latest decode and end
 * before `settled` (seconds on the session clock). The second rule bounds the wait when the decodes keep disagreeing
 * (noisy distant speech): a word with that much audio after it no longer gains from waiting.
 */
export function confirmed(
  previous: readonly RecognizedWord[],
  latest: readonly RecognizedWord[],
  settled: number,
): RecognizedWord[] {
  let n = 0
  while (n < previous.length && n < latest.length && previous[n]?.text === latest[n]?.text) n++
  while (n < latest.length && (latest[n] as RecognizedWord).end <= settled) n++
  return latest.slice(0, n)
}
