/**
 * The Recognizer on CMU PocketSphinx 5prealpha (Debian's pocketsphinx and pocketsphinx-en-us), driven as a
 * `pocketsphinx_batch` subprocess per call: no native addon, and a crash or a kill takes nothing else down.
 * docs/recognition.md gives the measured speed and accuracy and the phrase-check rule.
 */
import { tmpdir } from 'node:os'
import { alignmentLookups, buildAlignmentGrammar, readAlignment } from './alignment-grammar.ts'
import { runBatch } from './batch-decoder.ts'
import { DecodeQueue } from './decode-queue.ts'
import { parseCtm, parseHypseg } from './decoder-output.ts'
import { assertInstalled, findMissing, resolveInstall } from './install.ts'
import { buildPhraseGrammar, lookUpPronunciations, wordsToLookUp } from './phrase-grammar.ts'
import { scorePhrase } from './phrase-score.ts'
import { phraseWords } from './phrase-words.ts'
import type { PhraseCheck, RecognizeOptions, Recognizer, Transcription, WordSpan } from './recognizer.ts'
import { RECOGNITION_SAMPLE_RATE } from './recognizer.ts'
import { streamDecoderBinary, streamDecoderUnbuildable } from './stream-binary.ts'
import { openStreamDecoder } from './stream-decoder.ts'
import { DEFAULT_PLAN, FRAMES_PER_SECOND, frameLevels, planUtterances, voicedFrames } from './utterances.ts'
import { openWarmDecoder } from './warm-decoder.ts'

export interface PocketSphinxOptions {
  /** `pocketsphinx_batch` (default /usr/bin/pocketsphinx_batch). */
  binary?: string
  /**
   * The directory holding `en-us/` (acoustic model), `en-us.lm.bin` and `cmudict-en-us.dict`
   * (default /usr/share/pocketsphinx/model/en-us).
   */
  modelDir?: string
  /** Decodes running at once (default 2, one per core); further calls wait their turn. */
  concurrency?: number
  /** Where each decode's private temporary directory is made (default: the system's). */
  tmpDir?: string
  /** Least score at which `checkPhrase` says matched (default 0.8: a word error rate up to 20 %). */
  phraseThreshold?: number
  /**
   * Live words from the streaming decoder (stream-decoder.ts) where it can be built (default: yes; off decodes
   * again instead, which the benchmarks use to compare).
   */
  streaming?: boolean
}

export const DEFAULT_PHRASE_THRESHOLD = 0.8

/**
 * Open decoding with the trigram model. The pruning limits (active HMMs and word exits per frame) cut the CPU time
 * on conversational audio to a third of the defaults' for a small loss of accuracy (docs/recognition.md).
 */
const SEARCH_ARGS = ['-maxhmmpf', '3000', '-maxwpf', '5']
/** Grammar decoding for the phrase check; the grammar inserts silence and noise itself (phrase-grammar.ts). */
const PHRASE_ARGS = ['-jsgf', '{dir}/phrase.gram', '-dict', '{dir}/phrase.dict', '-fsgusefiller', 'no']
/** Word times need every frame counted: utterances.ts removes the silence instead. */
const COMMON_ARGS = ['-remove_silence', 'no']

export function createPocketSphinxRecognizer(opts: PocketSphinxOptions = {}): Recognizer {
  const install = resolveInstall(opts)
  const queue = new DecodeQueue(opts.concurrency ?? 2)
  const tmpRoot = opts.tmpDir ?? tmpdir()
  const threshold = opts.phraseThreshold ?? DEFAULT_PHRASE_THRESHOLD
  const lifetime = new AbortController()
  const inFlight = new Set<Promise<unknown>>()
  /** Open decoding's model and settings, the same for every decoder (batch, warm and streaming). */
  const openArgs = [
    ...['-hmm', install.acousticModel, '-lm', install.languageModel, '-dict', install.dictionary],
    ...COMMON_ARGS,
    ...SEARCH_ARGS,
  ]
  const streaming = opts.streaming ?? true

  /** Fails closed, checks the install on every call (it may be removed or added while running), tracks the call. */
  const call = <T>(
    opts: RecognizeOptions | undefined,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> => {
    const signal = opts?.signal ? AbortSignal.any([opts.signal, lifetime.signal]) : lifetime.signal
    const done = (async () => {
      signal.throwIfAborted()
      await assertInstalled(install)
      return work(signal)
    })()
    inFlight.add(done)
    const forget = () => inFlight.delete(done)
    done.then(forget, forget)
    return done
  }

  const transcribe = (audio: Float32Array, opts?: RecognizeOptions) =>
    call(opts, async (signal): Promise<Transcription> => {
      const boundaries = (opts?.boundaries ?? []).map((s) => Math.round(s * FRAMES_PER_SECOND))
      const utterances = planUtterances(frameLevels(audio), DEFAULT_PLAN, boundaries)
      if (utterances.length === 0) return { words: [], text: '' }
      const ctm = await queue.run(
        () =>
          runBatch({
            binary: install.binary,
            tmpRoot,
            audio,
            utterances,
            args: [...openArgs, '-ctm', '{dir}/words.ctm'],
            output: 'words.ctm',
            signal,
          }),
        signal,
      )
      const words = parseCtm(ctm, utterances)
      return { words, text: words.map((w) => w.text).join(' ') }
    })

  /** One utterance decoded with a grammar and its dictionary (the phrase check's and alignment's): its segments. */
  const decodeGrammar = (
    audio: Float32Array,
    utterance: { startFrame: number; endFrame: number },
    grammar: { jsgf: string; dictionary: string },
    signal: AbortSignal,
  ) =>
    queue.run(
      () =>
        runBatch({
          binary: install.binary,
          tmpRoot,
          audio,
          utterances: [utterance],
          args: [
            '-hmm',
            install.acousticModel,
            ...COMMON_ARGS,
            ...PHRASE_ARGS,
            '-hypseg',
            '{dir}/phrase.seg',
          ],
          files: { 'phrase.gram': grammar.jsgf, 'phrase.dict': grammar.dictionary },
          output: 'phrase.seg',
          signal,
        }),
      signal,
    )

  const checkPhrase = (audio: Float32Array, phrase: string, opts?: RecognizeOptions) =>
    call(opts, async (signal): Promise<PhraseCheck> => {
      const nothing: PhraseCheck = { matched: false, heard: '', score: 0 }
      const levels = frameLevels(audio)
      const speech = planUtterances(levels)
      const first = speech[0]
      const last = speech.at(-1)
      const words = phraseWords(phrase)
      if (!(first && last) || words.length === 0) return nothing
      const grammar = buildPhraseGrammar(
        words,
        await lookUpPronunciations(install.dictionary, wordsToLookUp(words)),
      )
      if (!grammar.known.includes(true)) return nothing
      // One utterance from the first speech to the last: pauses inside are the grammar's gaps.
      const utterance = { startFrame: first.startFrame, endFrame: last.endFrame }
      const hypseg = await decodeGrammar(audio, utterance, grammar, signal)
      const voiced = voicedFrames(levels).subarray(utterance.startFrame, utterance.endFrame)
      const { heard, score } = scorePhrase(words, grammar.known, parseHypseg(hypseg), voiced)
      return { matched: score >= threshold, heard, score }
    })

  /** The phrase check's decoding, with a grammar that makes every word required (alignment-grammar.ts). */
  const align = (audio: Float32Array, words: readonly string[], opts?: RecognizeOptions) =>
    call(opts, async (signal): Promise<WordSpan[] | null> => {
      const frames = Math.floor((audio.length / RECOGNITION_SAMPLE_RATE) * FRAMES_PER_SECOND)
      if (words.length === 0 || frames < 2) return null
      const grammar = buildAlignmentGrammar(
        words,
        await lookUpPronunciations(install.dictionary, alignmentLookups(words)),
      )
      const utterance = { startFrame: 0, endFrame: frames }
      const hypseg = await decodeGrammar(audio, utterance, grammar, signal)
      return readAlignment(grammar, parseHypseg(hypseg))
    })

  return {
    name: 'pocketsphinx',
    available: async () => (await findMissing(install)) === null,
    transcribe,
    checkPhrase,
    align,
    warm: () =>
      openWarmDecoder({
        binary: install.binary,
        tmpRoot,
        args: openArgs,
        ready: () => assertInstalled(install),
      }),
    stream: () => {
      if (!streaming || streamDecoderUnbuildable()) return null
      return openStreamDecoder({
        binary: streamDecoderBinary(),
        args: openArgs,
        ready: () => assertInstalled(install),
      })
    },
    async close() {
      lifetime.abort(new Error('The recognizer is closed.'))
      await Promise.allSettled(inFlight)
    },
  }
}
