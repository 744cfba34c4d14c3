/**
 * The real PocketSphinx on speech from the project's eSpeak engine. Bounds are loose on purpose (formant speech is
 * far from what the model was trained on), but each fails when recognition breaks. No test measures speed.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { meetingFile } from '../../testing/meetings.ts'
import { decodeAudio } from '../codecs/decode.ts'
import { createEspeakSynthesizer } from '../espeak/pool.ts'
import type { Synthesizer } from '../synthesizer.ts'
import { voiceParamsFor } from '../voice-params.ts'
import {
  createPocketSphinxRecognizer,
  type Recognizer,
  RecognizerUnavailableError,
  type Transcription,
} from './index.ts'
import { phraseWords } from './phrase-words.ts'
import { joinAudio, speak16k } from './test-speech.ts'

const CONSENT = 'I am the owner of this voice and I consent to its use to create a synthetic voice.'
const SENTENCES = [
  'The weather today is sunny with a light breeze from the west.',
  'Please send me the report before the meeting on Monday morning.',
  'The quick brown fox jumps over the lazy dog.',
  'We should buy some fresh bread and milk at the store tonight.',
]
const RATE = 16_000
const LONG = 60_000

let synth: Synthesizer
let recognizer: Recognizer
let tmpRoot: string

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
  tmpRoot = await mkdtemp(join(tmpdir(), 'recognition-test-'))
  recognizer = createPocketSphinxRecognizer({ tmpDir: tmpRoot })
})
afterAll(async () => {
  await Promise.all([synth.close(), recognizer.close()])
  await rm(tmpRoot, { recursive: true, force: true })
})

/** Word-level edit distance over the reference's length, both sides normalized alike. */
function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = phraseWords(reference)
  const hyp = phraseWords(hypothesis)
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j)
  for (let i = 1; i <= ref.length; i++) {
    const current = [i]
    for (let j = 1; j <= hyp.length; j++) {
      const substitution = ref[i - 1] === hyp[j - 1] ? 0 : 1
      current.push(
        Math.min(
          (previous[j - 1] as number) + substitution,
          (previous[j] as number) + 1,
          (current[j - 1] as number) + 1,
        ),
      )
    }
    previous = current
  }
  return (previous[hyp.length] as number) / ref.length
}

/** Command lines of running decoders whose files live under `dir`. */
const decodersUnder = (dir: string) =>
  execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('pocketsphinx_batch') && line.includes(dir))

/** Streaming decoders this test process started (their command lines name no directory). */
const ownStreamDecoders = () =>
  execFileSync('ps', ['-o', 'args', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('ps-stream-'))

describe('transcribe', () => {
  it(
    'recognizes most words of spoken sentences, with word times in order and inside the audio',
    async () => {
      let errors = 0
      let words = 0
      for (const sentence of SENTENCES) {
        const audio = await speak16k(synth, sentence)
        const { words: recognized, text } = await recognizer.transcribe(audio)
        expect(text).toBe(recognized.map((w) => w.text).join(' '))
        errors += wordErrorRate(sentence, text) * phraseWords(sentence).length
        words += phraseWords(sentence).length
        for (const [i, word] of recognized.entries()) {
          expect(word.text).toMatch(/^[a-z']+$/)
          expect(word.start).toBeGreaterThanOrEqual(0)
          expect(word.end).toBeGreaterThan(word.start)
          expect(word.end).toBeLessThanOrEqual(audio.length / RATE)
          expect(word.confidence).toBeGreaterThanOrEqual(0)
          expect(word.confidence).toBeLessThanOrEqual(1)
          if (i > 0) expect(word.start).toBeGreaterThanOrEqual((recognized[i - 1] as { end: number }).end)
        }
      }
      // Measured about 0.2 with this voice; the trigram model alone, without the audio, would be near 1.
      expect(errors / words).toBeLessThan(0.4)
    },
    LONG,
  )

  it(
    'places words in the recording: sentences with long pauses come out in order at their times',
    async () => {
      const quiet = new Float32Array(3 * RATE)
      const first = await speak16k(synth, 'Please send me the report.')
      const second = await speak16k(synth, 'The weather today is sunny.')
      const audio = joinAudio([quiet, first, quiet, second])
      const { words } = await recognizer.transcribe(audio)
      const secondStarts = (quiet.length * 2 + first.length) / RATE
      const before = words.filter((w) => w.end <= secondStarts)
      const after = words.filter((w) => w.start >= secondStarts)
      expect(before.length + after.length).toBe(words.length)
      expect(before[0]?.start).toBeGreaterThan(3)
      expect(wordErrorRate('Please send me the report.', before.map((w) => w.text).join(' '))).toBeLessThan(
        0.5,
      )
      expect(wordErrorRate('The weather today is sunny.', after.map((w) => w.text).join(' '))).toBeLessThan(
        0.5,
      )
    },
    LONG,
  )

  it('hears nothing in silence', async () => {
    expect(await recognizer.transcribe(new Float32Array(2 * RATE))).toEqual({ words: [], text: '' })
    expect(await recognizer.transcribe(new Float32Array(0))).toEqual({ words: [], text: '' })
  })

  it(
    'stops on abort: kills the decoder and removes its temporary files',
    async () => {
      const sentence = await speak16k(synth, SENTENCES[0] as string, undefined, 0.1)
      // About a minute of speech, so the decoder is surely still running when the abort comes.
      const audio = joinAudio(Array.from({ length: 16 }, () => sentence))
      const controller = new AbortController()
      const decoding = recognizer.transcribe(audio, { signal: controller.signal })
      await vi.waitFor(() => expect(decodersUnder(tmpRoot)).toHaveLength(1), {
        timeout: 20_000,
        interval: 50,
      })
      controller.abort()
      await expect(decoding).rejects.toMatchObject({ name: 'AbortError' })
      expect(decodersUnder(tmpRoot)).toEqual([])
      expect(await readdir(tmpRoot)).toEqual([])
    },
    LONG,
  )
})

describe('checkPhrase', () => {
  it(
    'matches the consent phrase spoken by synthetic voices, written or contracted',
    async () => {
      const catalogVoice = voiceParamsFor('english_40')
      for (const voice of [undefined, catalogVoice]) {
        const check = await recognizer.checkPhrase(await speak16k(synth, CONSENT, voice), CONSENT)
        expect(check).toMatchObject({ matched: true })
        expect(wordErrorRate(CONSENT, check.heard)).toBeLessThanOrEqual(1 - check.score)
      }
      const contracted = await speak16k(synth, CONSENT.replace('I am', "I'm"))
      expect(await recognizer.checkPhrase(contracted, CONSENT)).toMatchObject({ matched: true })
    },
    LONG,
  )

  it(
    'rejects a different sentence, a refusal and silence',
    async () => {
      for (const sentence of [
        ...SENTENCES,
        'I am not the owner of this voice and I do not consent to its use.',
      ]) {
        const check = await recognizer.checkPhrase(await speak16k(synth, sentence), CONSENT)
        expect(check.matched).toBe(false)
        expect(check.score).toBeLessThan(0.7)
      }
      expect(await recognizer.checkPhrase(new Float32Array(3 * RATE), CONSENT)).toEqual({
        matched: false,
        heard: '',
        score: 0,
      })
    },
    LONG,
  )

  it(
    'survives words the dictionary lacks, in the phrase and in the audio',
    async () => {
      const strange = 'Zxqvbnm grüße Kowalczykowski, I consent.'
      const check = await recognizer.checkPhrase(await speak16k(synth, strange), strange)
      // Only "i consent" can be verified; the unknown words are judged by whether something was said there.
      expect(check.score).toBeGreaterThan(0.4)
      const nothingKnown = await recognizer.checkPhrase(await speak16k(synth, 'Zxqvbnm!'), 'Zxqvbnm grüße')
      expect(nothingKnown).toEqual({ matched: false, heard: '', score: 0 })
    },
    LONG,
  )
})

describe('warm decoding', () => {
  it(
    'decodes as transcribe does, call after call, from one process that close ends',
    async () => {
      const warm = (recognizer.warm as NonNullable<Recognizer['warm']>)()
      try {
        for (const sentence of SENTENCES.slice(0, 2)) {
          const audio = await speak16k(synth, sentence)
          const [cold, hot] = await Promise.all([recognizer.transcribe(audio), warm.transcribe(audio)])
          expect(hot.text).toBe(cold.text)
          expect(hot.words.length).toBeGreaterThan(3)
          hot.words.forEach((w, i) => {
            const c = cold.words[i] as (typeof cold.words)[number]
            expect(Math.abs(w.start - c.start)).toBeLessThanOrEqual(0.011)
            expect(Math.abs(w.end - c.end)).toBeLessThanOrEqual(0.011)
          })
        }
        expect(await warm.transcribe(new Float32Array(RATE))).toEqual({ words: [], text: '' })
        expect(decodersUnder(tmpRoot).filter((line) => line.includes('pocketsphinx-warm-'))).toHaveLength(1)
      } finally {
        await warm.close()
      }
      expect(decodersUnder(tmpRoot)).toEqual([])
      expect((await readdir(tmpRoot)).filter((name) => name.startsWith('pocketsphinx-warm-'))).toEqual([])
      await expect(warm.transcribe(await speak16k(synth, 'Hello there.'))).rejects.toThrow(/closed/)
    },
    LONG,
  )

  it('fails its calls, without hanging, when the decoder dies at start', async () => {
    const broken = createPocketSphinxRecognizer({ binary: '/bin/false', tmpDir: tmpRoot })
    const warm = (broken.warm as NonNullable<Recognizer['warm']>)()
    await expect(warm.transcribe(await speak16k(synth, 'Hello there.'))).rejects.toThrow(/exited/)
    await warm.close()
    await broken.close()
  })
})

describe('streaming decoding', () => {
  /** 12 s of a real meeting, people talking in turns on a distant microphone (the whole decode hears 44 words). */
  const meeting = async () => {
    const decoded = await decodeAudio(readFileSync(meetingFile('trn03.wav')), { targetRate: RATE })
    return decoded.samples.subarray(15 * RATE, 27 * RATE)
  }
  const streamOf = (r: Recognizer) => {
    const stream = r.stream?.()
    if (!stream) throw new Error('no streaming decoder: it needs cc, pkg-config and libpocketsphinx-dev')
    return stream
  }

  it(
    'hears real speech pushed in 100 ms pieces, words within the audio so far, as a whole decode does',
    async () => {
      const audio = await meeting()
      const stream = streamOf(recognizer)
      try {
        const answers: Array<{ pushed: number; words: Transcription['words'] }> = []
        for (let at = 0; at < audio.length; at += RATE / 10) {
          stream.push(audio.subarray(at, at + RATE / 10))
          if ((at / (RATE / 10)) % 5 === 4) {
            const pushed = Math.min(audio.length, at + RATE / 10) / RATE
            answers.push({ pushed, words: (await stream.hypothesis()).words })
          }
        }
        for (const { pushed, words } of answers) {
          for (const [i, w] of words.entries()) {
            expect(w.start).toBeLessThan(w.end)
            expect(w.end).toBeLessThanOrEqual(pushed + 0.011)
            if (i > 0) expect(w.start).toBeGreaterThanOrEqual((words[i - 1] as typeof w).end)
          }
        }
        const last = (await stream.hypothesis()).words.map((w) => w.text)
        const whole = (await recognizer.transcribe(audio)).words.map((w) => w.text)
        expect(last.length).toBeGreaterThan(10)
        // The same model on the same audio: most words agree, though the whole decode adds two passes.
        const common = last.filter((w) => {
          const i = whole.indexOf(w)
          if (i >= 0) whole.splice(i, 1)
          return i >= 0
        })
        expect(common.length).toBeGreaterThan(last.length / 2)

        // A restart drops the utterance: silence after it holds no words.
        stream.restart()
        stream.push(new Float32Array(RATE))
        expect((await stream.hypothesis()).words).toEqual([])
        expect(ownStreamDecoders()).toHaveLength(1)
      } finally {
        await stream.close()
      }
      expect(ownStreamDecoders()).toEqual([])
      await expect(stream.hypothesis()).rejects.toThrow(/closed/)
    },
    LONG,
  )

  it('fails its calls, without hanging, when the decoder dies', async () => {
    const audio = await meeting()
    const stream = streamOf(recognizer)
    stream.push(audio.subarray(0, RATE))
    expect((await stream.hypothesis()).words.length).toBeGreaterThan(0)
    execFileSync('pkill', ['-KILL', '-P', String(process.pid), '-f', 'ps-stream-'])
    await expect(stream.hypothesis()).rejects.toThrow(/exited|closed/)
    await stream.close()
  })

  it('is not offered when the recognizer is told not to stream', () => {
    expect(createPocketSphinxRecognizer({ streaming: false }).stream?.()).toBeNull()
  })
})

describe('when PocketSphinx is not installed', () => {
  it('says so and fails every call closed', async () => {
    const missing = createPocketSphinxRecognizer({ binary: '/nonexistent/pocketsphinx_batch' })
    expect(await missing.available()).toBe(false)
    const audio = new Float32Array(RATE)
    await expect(missing.transcribe(audio)).rejects.toThrow(RecognizerUnavailableError)
    await expect((missing.warm as NonNullable<Recognizer['warm']>)().transcribe(audio)).rejects.toThrow(
      RecognizerUnavailableError,
    )
    await expect(missing.checkPhrase(audio, CONSENT)).rejects.toThrow(
      /nonexistent\/pocketsphinx_batch is missing/,
    )
    await missing.close()
  })

  it('finds its model in the model directory it is given', async () => {
    const missing = createPocketSphinxRecognizer({ modelDir: '/nonexistent/model' })
    expect(await missing.available()).toBe(false)
    await expect(missing.transcribe(new Float32Array(RATE))).rejects.toThrow(RecognizerUnavailableError)
    await missing.close()
    expect(await recognizer.available()).toBe(true)
  })
})
