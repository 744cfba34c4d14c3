/**
 * `npm run bench:engine`: the synthesis engine alone, without HTTP. For each language voice (arabic_38 … hindi_47,
 * second-generation settings: markup and the expressive decoding preset) and for each model (svc-tts-2-latest on
 * english_40, the three 0.8 models on Bella), for one sentence and for 5,000 characters: the real-time factor (wall
 * time over audio time; under 1 is faster than real time) and the latency of the first audio chunk. Then what text
 * preparation costs per 1,000 characters: normalization, markup planning, and markup planning with sampled prosody.
 * One request at a time on a pool of `WORKERS` (default 2) eSpeak threads; medians of `REPEAT` (default 3) runs.
 */
import {
  builtinVoiceLanguage,
  isSecondGen,
  LEGACY_MODELS,
  MODE_PRESETS,
  type ModelId,
  SECOND_GEN_MODEL,
} from '../schema/index.ts'
import { ProsodyShaper } from '../server/engine/decoding/index.ts'
import { createEspeakSynthesizer } from '../server/engine/espeak/pool.ts'
import { planUtterance } from '../server/engine/markup/index.ts'
import { speak } from '../server/engine/speak.ts'
import { OUTPUT_SAMPLE_RATE } from '../server/engine/synthesizer.ts'
import { normalizeText } from '../server/engine/text/index.ts'
import { voiceParamsFor } from '../server/engine/voice-params.ts'
import { percentile } from './stats.ts'

const WORKERS = Number(process.env.WORKERS ?? 2)
const REPEAT = Number(process.env.REPEAT ?? 3)
const LONG_CHARS = 5000

const SENTENCES: Record<string, string> = {
  arabic_38: 'كان الجو جميلا في الصباح، فخرجنا نمشي على شاطئ البحر حتى وقت الظهر.',
  german_39: 'Der schnelle braune Fuchs springt über den faulen Hund und ruht sich dann im Schatten aus.',
  english_40: 'The quick brown fox jumps over the lazy dog, then rests in the shade of the old tree.',
  spanish_41: 'El rápido zorro marrón salta sobre el perro perezoso y luego descansa a la sombra.',
  french_42: 'Le renard brun rapide saute par-dessus le chien paresseux, puis se repose à l’ombre.',
  italian_43:
    'La volpe marrone veloce salta sopra il cane pigro, poi si riposa all’ombra del vecchio albero.',
  portuguese_44: 'A rápida raposa marrom pula sobre o cão preguiçoso e depois descansa na sombra da árvore.',
  russian_45: 'Быстрая бурая лиса прыгает через ленивую собаку, а потом отдыхает в тени старого дерева.',
  chinese_46: '敏捷的棕色狐狸跳过了那只懒狗，然后在老树的树荫下休息。',
  hindi_47: 'तेज़ भूरी लोमड़ी आलसी कुत्ते के ऊपर से कूदती है और फिर पुराने पेड़ की छाँव में आराम करती है।',
}

/** The sentence repeated, with a space between, cut at `chars` characters. */
function longText(sentence: string, chars: number): string {
  const repeated = `${sentence} `.repeat(Math.ceil(chars / (sentence.length + 1)))
  return repeated.slice(0, chars)
}

const synth = await createEspeakSynthesizer({ workers: WORKERS })

interface Run {
  firstChunkMs: number
  wallMs: number
  audioSeconds: number
}

async function runOnce(voiceId: string, model: ModelId, text: string): Promise<Run> {
  const voice = voiceParamsFor(voiceId)
  if (!voice) throw new Error(`${voiceId} is not a catalog voice`)
  const secondGen = isSecondGen(model)
  const started = performance.now()
  let firstChunkMs = Number.NaN
  let samples = 0
  for await (const chunk of speak(synth, {
    text,
    voice,
    language: builtinVoiceLanguage(voiceId) ?? 'en-US',
    speed: 1,
    markup: secondGen,
    model,
    maxNewTokens: null,
    decoding: secondGen ? MODE_PRESETS.expressive : undefined,
  })) {
    if (Number.isNaN(firstChunkMs)) firstChunkMs = performance.now() - started
    samples += chunk.length
  }
  return { firstChunkMs, wallMs: performance.now() - started, audioSeconds: samples / OUTPUT_SAMPLE_RATE }
}

async function measure(voiceId: string, model: ModelId, text: string, repeat: number) {
  const runs: Run[] = []
  for (let i = 0; i < repeat; i++) runs.push(await runOnce(voiceId, model, text))
  const rtf = runs.map((r) => r.wallMs / 1000 / r.audioSeconds)
  return {
    rtf: percentile(rtf, 50),
    firstChunkMs: percentile(
      runs.map((r) => r.firstChunkMs),
      50,
    ),
    audioSeconds: runs[0]?.audioSeconds ?? 0,
  }
}

const cell = (s: string, width: number) => s.padStart(width)
const fmtRtf = (x: number) => x.toFixed(3)

// Warm every worker so the first row does not pay for page faults and JIT.
await Promise.all(Array.from({ length: WORKERS }, () => runOnce('english_40', SECOND_GEN_MODEL, 'Warm up.')))

console.log(
  `bench:engine — eSpeak pool of ${WORKERS} workers, one request at a time, median of ${REPEAT} runs`,
)
console.log('RTF = wall time / audio time (under 1: faster than real time); first = first audio chunk\n')

console.log('per language (svc-tts-2-latest, expressive preset, markup on)')
console.log(
  `${'voice'.padEnd(15)}${cell('sentence RTF', 13)}${cell('first ms', 10)}${cell('audio s', 9)}   ${cell('5,000 ch RTF', 13)}${cell('first ms', 10)}${cell('audio s', 9)}${cell('RTF vs en', 11)}`,
)
const languageRows: Array<
  [string, Awaited<ReturnType<typeof measure>>, Awaited<ReturnType<typeof measure>>]
> = []
for (const [voiceId, sentence] of Object.entries(SENTENCES)) {
  const short = await measure(voiceId, SECOND_GEN_MODEL, sentence, REPEAT)
  const long = await measure(voiceId, SECOND_GEN_MODEL, longText(sentence, LONG_CHARS), 1)
  languageRows.push([voiceId, short, long])
}
const englishLong = languageRows.find(([id]) => id === 'english_40')?.[2].rtf ?? Number.NaN
for (const [voiceId, short, long] of languageRows) {
  console.log(
    `${voiceId.padEnd(15)}${cell(fmtRtf(short.rtf), 13)}${cell(short.firstChunkMs.toFixed(0), 10)}${cell(short.audioSeconds.toFixed(1), 9)}   ${cell(fmtRtf(long.rtf), 13)}${cell(long.firstChunkMs.toFixed(0), 10)}${cell(long.audioSeconds.toFixed(0), 9)}${cell(`${(long.rtf / englishLong).toFixed(2)}×`, 11)}`,
  )
}

console.log(
  '\nper model (english_40 for svc-tts-2-latest with the expressive preset; Bella for the 0.8 models)',
)
console.log(
  `${'model'.padEnd(19)}${cell('sentence RTF', 13)}${cell('first ms', 10)}${cell('audio s', 9)}   ${cell('5,000 ch RTF', 13)}${cell('first ms', 10)}${cell('audio s', 9)}${cell('RTF vs mini', 13)}`,
)
const english = SENTENCES.english_40 as string
const modelRows: Array<[ModelId, Awaited<ReturnType<typeof measure>>, Awaited<ReturnType<typeof measure>>]> =
  []
for (const model of [SECOND_GEN_MODEL, ...LEGACY_MODELS] as ModelId[]) {
  const voiceId = isSecondGen(model) ? 'english_40' : 'Bella'
  const short = await measure(voiceId, model, english, REPEAT)
  const long = await measure(voiceId, model, longText(english, LONG_CHARS), 1)
  modelRows.push([model, short, long])
}
const miniLong = modelRows.find(([m]) => m === 'svc-tts-mini-0.8')?.[2].rtf ?? Number.NaN
for (const [model, short, long] of modelRows) {
  console.log(
    `${model.padEnd(19)}${cell(fmtRtf(short.rtf), 13)}${cell(short.firstChunkMs.toFixed(0), 10)}${cell(short.audioSeconds.toFixed(1), 9)}   ${cell(fmtRtf(long.rtf), 13)}${cell(long.firstChunkMs.toFixed(0), 10)}${cell(long.audioSeconds.toFixed(0), 9)}${cell(`${(long.rtf / miniLong).toFixed(2)}×`, 13)}`,
  )
}
await synth.close()

/** Milliseconds per 1,000 characters of `fn` over `text`, median of several timed batches after a warm-up. */
function costPer1000(text: string, fn: (text: string) => unknown): number {
  for (let i = 0; i < 3; i++) fn(text)
  const samples: number[] = []
  for (let batch = 0; batch < 7; batch++) {
    const started = performance.now()
    let rounds = 0
    while (performance.now() - started < 150) {
      fn(text)
      rounds++
    }
    samples.push((performance.now() - started) / rounds)
  }
  return (percentile(samples, 50) / text.length) * 1000
}

const englishProse = longText(
  'On 2024-03-05 at 3:30 pm, Dr. Smith paid $1,234.56 for 12 kg of apples, 3.5 km from St. Mary’s (about 20% off).',
  LONG_CHARS,
)
const markedUp = longText(
  '[joyful] What a day it has been! <laugh> We finally did it, (((all of us))), together. [sad] But tomorrow we part. <sigh>',
  LONG_CHARS,
)
const russian = longText(SENTENCES.russian_45 as string, LONG_CHARS)
console.log('\ntext preparation, per 1,000 characters (5,000-character inputs, median of 7 batches)')
const rows: Array<[string, number]> = [
  [
    'normalize English (numbers, dates, money)',
    costPer1000(englishProse, (t) => normalizeText(t, { voiceLanguage: 'en-US' })),
  ],
  [
    'normalize Russian (cleanup only)',
    costPer1000(russian, (t) => normalizeText(t, { voiceLanguage: 'ru' })),
  ],
  ['markup plan (emotions, sounds, emphasis)', costPer1000(markedUp, (t) => planUtterance(t, 'en'))],
  [
    'markup plan + sampled prosody (expressive)',
    costPer1000(markedUp, (t) =>
      planUtterance(t, 'en', {
        shaper: new ProsodyShaper({ decoding: MODE_PRESETS.expressive, random: Math.random }),
      }),
    ),
  ],
  [
    'plain text + sampled prosody (expressive)',
    costPer1000(englishProse, (t) =>
      planUtterance(t, 'en', {
        markup: false,
        shaper: new ProsodyShaper({ decoding: MODE_PRESETS.expressive, random: Math.random }),
      }),
    ),
  ],
]
for (const [label, ms] of rows) console.log(`  ${label.padEnd(46)}${ms.toFixed(3).padStart(8)} ms`)
