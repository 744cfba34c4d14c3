/**
 * How close the review page's proportional re-timing of corrected words (core/word-alignment.ts) comes to the
 * recognizer's own times, on real meeting speech: each excerpt is decoded, then runs of its words are taken out and
 * given back as a reviewer's correction would give them (inserted: timed over the pause between their neighbours;
 * replaced: two wrong words standing where three were spoken, timed over the two's time), and their starts compared
 * with the decoder's. `npx tsx scripts/measure-alignment.ts [trn00.wav …]` (default: all ten).
 */
import { readFileSync } from 'node:fs'
import { realign, type TimedWord } from '../core/word-alignment.ts'
import { decodeAudio } from '../server/engine/codecs/decode.ts'
import { createPocketSphinxRecognizer, RECOGNITION_SAMPLE_RATE } from '../server/engine/recognition/index.ts'
import { meetingFile } from '../server/testing/meetings.ts'

const files = process.argv.slice(2)
const names = files.length > 0 ? files : Array.from({ length: 10 }, (_, i) => `trn0${i}.wav`)

/** Absolute start errors (seconds) per scenario. */
const errors: Record<string, number[]> = {
  'insert 1': [],
  'insert 3': [],
  'replace 2 by 3': [],
  'forced, 3 words in a 9-word span': [],
}

function measure(words: readonly TimedWord[]) {
  const text = words.map((w) => w.text).join(' ')
  const span = { start: words[0]?.start ?? 0, end: words.at(-1)?.end ?? 0 }
  for (let i = 1; i + 4 < words.length; i++) {
    for (const k of [1, 3]) {
      const before = [...words.slice(0, i), ...words.slice(i + k)]
      const aligned = realign(before, text, span.start, span.end)
      for (let r = 0; r < k; r++) {
        const got = aligned[i + r]
        const truth = words[i + r] as TimedWord
        if (got) errors[`insert ${k}`]?.push(Math.abs(got.start - truth.start))
      }
    }
    // Two wrong words over the time of three spoken ones; the reviewer types the three.
    const first = words[i] as TimedWord
    const third = words[i + 2] as TimedWord
    const middle = (first.start + third.end) / 2
    const wrong = [
      { text: 'xq', start: first.start, end: middle },
      { text: 'xq', start: middle, end: third.end },
    ]
    const before = [...words.slice(0, i), ...wrong, ...words.slice(i + 3)]
    const aligned = realign(before, text, span.start, span.end)
    for (let r = 0; r < 3; r++) {
      const got = aligned[i + r]
      const truth = words[i + r] as TimedWord
      if (got) errors['replace 2 by 3']?.push(Math.abs(got.start - truth.start))
    }
  }
}

/**
 * Forced alignment (the recognizer's `align`) of a 9-word span's text over its audio, as the review page asks for a
 * corrected turn; the three middle words' starts compared with the open decoder's. Whatever the correction was, the
 * alignment sees only the audio and the text, so one scenario stands for all three above.
 */
const forced = { spans: 0, failed: 0 }
async function measureForced(audio: Float32Array, words: readonly TimedWord[]) {
  for (let i = 3; i + 6 <= words.length; i += 3) {
    const span = words.slice(i - 3, i + 6)
    const from = Math.max(0, (span[0]?.start ?? 0) - 0.2)
    const to = (span.at(-1)?.end ?? 0) + 0.2
    const slice = audio.subarray(
      Math.floor(from * RECOGNITION_SAMPLE_RATE),
      Math.ceil(to * RECOGNITION_SAMPLE_RATE),
    )
    const spans = await recognizer.align?.(
      slice,
      span.map((w) => w.text),
    )
    forced.spans++
    if (!spans) forced.failed++
    for (let r = 3; r < 6; r++) {
      const truth = span[r] as TimedWord
      const got = spans?.[r]
      // A failed alignment counts as the proportional fallback would be: here, as a miss of the whole span.
      errors['forced, 3 words in a 9-word span']?.push(
        got ? Math.abs(from + got.start - truth.start) : to - from,
      )
    }
  }
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN

const recognizer = createPocketSphinxRecognizer()
let total = 0
for (const name of names) {
  const decoded = await decodeAudio(readFileSync(meetingFile(name)), { targetRate: RECOGNITION_SAMPLE_RATE })
  const { words } = await recognizer.transcribe(decoded.samples)
  total += words.length
  measure(words)
  await measureForced(decoded.samples, words)
  console.log(`${name}: ${words.length} words`)
}
console.log(`${total} recognized words in ${names.length} excerpts; start error of re-timed words:`)
for (const [scenario, list] of Object.entries(errors)) {
  const sorted = [...list].sort((a, b) => a - b)
  const within = sorted.filter((e) => e <= 0.3).length / Math.max(1, sorted.length)
  console.log(
    `${scenario}: n=${sorted.length} median ${quantile(sorted, 0.5).toFixed(3)} s, p90 ${quantile(sorted, 0.9).toFixed(3)} s, ` +
      `within 0.3 s ${(within * 100).toFixed(1)} %`,
  )
}
console.log(
  `forced alignment failed (no path through the grammar) on ${forced.failed} of ${forced.spans} spans`,
)
await recognizer.close()
process.exit(0)
