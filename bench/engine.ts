/**
 * `npm run bench:engine`: the synthesis engine alone, without HTTP.
 *
 * 1. The pipeline beside raw eSpeak NG on the same text in the same run: 5,000 characters of English, raw eSpeak in
 *    a thread of its own (the voice's settings, no resampling, nothing else) and the service's pipeline (normalize,
 *    segment, sampled prosody, eSpeak in the pool, resampling, hand-off, the PCM stream's chunking and SSE framing)
 *    alternating, `REPEAT` (default 5) rounds; medians of the real-time speed (× real time: audio seconds per wall
 *    second) and of the per-round ratio pipeline / raw.
 * 2. The cost of each stage per second of audio, on real eSpeak output, one thread: resampling (the polyphase filter
 *    in use, its JavaScript fallback, libsamplerate's medium and best sinc), time-stretch, prosody planning, formant
 *    warping, the 0.8 models' low-pass, chunking, each format's encoding, SSE serialisation; beside it, eSpeak's own
 *    cost per second from part 1. Then the resampler's quality against libsamplerate's best sinc (docs/architecture.md).
 * 3. Unless `TABLES=0`: for each language voice (arabic_38 … hindi_47, second-generation settings: markup and the
 *    expressive decoding preset) and for each model (svc-tts-2-latest on english_40, the three 0.8 models on Bella),
 *    for one sentence and for 5,000 characters: the real-time factor and the latency of the first audio chunk; then
 *    what text preparation costs per 1,000 characters.
 * One request at a time on a pool of `WORKERS` (default 2) eSpeak threads.
 *
 * Smoke mode (`--smoke`, bench/smoke.ts): one round, 300-character texts, one run per table row for two languages
 * and two models, one batch per stage cost.
 */
import { Worker } from 'node:worker_threads'
import libsamplerate from '@alexanderolsen/libsamplerate-js'
import FFT from 'fft.js'
import { concat } from '../core/concat.ts'
import {
  builtinVoiceLanguage,
  isSecondGen,
  LEGACY_MODELS,
  MODE_PRESETS,
  type ModelId,
  PCM_DELTA_BYTES,
  SECOND_GEN_MODEL,
} from '../schema/index.ts'
import { FormantWarper } from '../server/engine/cloning/envelope.ts'
import { type CompressedFormat, encodeCompressed } from '../server/engine/codecs/encode.ts'
import { ProsodyShaper } from '../server/engine/decoding/index.ts'
import { PolyphaseResampler } from '../server/engine/espeak/polyphase.ts'
import { createEspeakSynthesizer } from '../server/engine/espeak/pool.ts'
import { StreamResampler } from '../server/engine/espeak/resampler.ts'
import { escapeForSsml, espeakRate } from '../server/engine/espeak/text.ts'
import { planUtterance } from '../server/engine/markup/index.ts'
import { lowpass } from '../server/engine/model-profiles.ts'
import { speak } from '../server/engine/speak.ts'
import { OUTPUT_SAMPLE_RATE, type VoiceParams } from '../server/engine/synthesizer.ts'
import { normalizeText, segmentForSynthesis } from '../server/engine/text/index.ts'
import { TimeStretcher } from '../server/engine/time-stretch.ts'
import { voiceParamsFor } from '../server/engine/voice-params.ts'
import {
  audioDeltaFrame,
  encodeStream,
  fixedSizePieces,
  pcmBytes,
} from '../server/speech/synthesis/audio-out.ts'
import { announceSmoke, count, SMOKE } from './smoke.ts'
import { percentile } from './stats.ts'

const WORKERS = Number(process.env.WORKERS ?? 2)
const REPEAT = count(5, 1, 'REPEAT')
const TABLE_REPEAT = count(3, 1)
const LONG_CHARS = count(5000, 300)
const STAGE_BATCHES = count(5, 1)
const TEXT_BATCHES = count(7, 1)
/** Section 2's eSpeak material (about 25 s of speech; 6 s in smoke mode) and its tone sweep's step. */
const MATERIAL_CHARS = count(420, 100)
const TONE_STEP_HZ = count(50, 950)

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

const median = (values: number[]) => percentile(values, 50)
const english = SENTENCES.english_40 as string
const ENGLISH_LONG = longText(english, LONG_CHARS)
const englishVoice = voiceParamsFor('english_40') as VoiceParams

// --- 1. The pipeline beside raw eSpeak NG -------------------------------------------------------------------------

/**
 * Raw eSpeak NG in a thread of its own: the same module and the same call the engine's workers make, with the voice's
 * settings, and nothing around it. The time is eSpeak's own, measured inside the thread.
 */
const RAW_WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
import(workerData.espeak).then(async ({ default: init }) => {
  const espeak = await init()
  const engine = new espeak.eSpeakNGWorker()
  parentPort.on('message', ({ text, voice, rate, pitch, range }) => {
    engine.set_voice(voice)
    engine.set_rate(rate)
    engine.set_pitch(pitch)
    engine.set_range(range)
    let samples = 0
    const started = performance.now()
    engine.synthesize(text, (chunk) => { samples += chunk.length; return false })
    parentPort.postMessage({ samples, ms: performance.now() - started, rate: engine.get_samplerate() })
  })
  parentPort.postMessage('ready')
})
`
const rawThread = new Worker(RAW_WORKER, {
  eval: true,
  workerData: { espeak: import.meta.resolve('@echogarden/espeak-ng-emscripten') },
})
await new Promise((resolve) => rawThread.once('message', resolve))

/** Raw eSpeak on `text`: seconds of audio and milliseconds of eSpeak's time. */
function rawEspeak(text: string, voice: VoiceParams): Promise<{ audioSeconds: number; ms: number }> {
  return new Promise((resolve) => {
    rawThread.once('message', (m: { samples: number; ms: number; rate: number }) =>
      resolve({ audioSeconds: m.samples / m.rate, ms: m.ms }),
    )
    rawThread.postMessage({
      text: escapeForSsml(text),
      voice: voice.espeakVoice,
      rate: espeakRate(voice.rate, 1),
      pitch: voice.pitch,
      range: voice.range,
    })
  })
}

const synth = await createEspeakSynthesizer({ workers: WORKERS })

interface PipelineCase {
  label: string
  model: ModelId
  voice: VoiceParams
  /** The service's SSE PCM output after synthesis: 4,800-byte deltas, base64 in JSON frames. */
  sse: boolean
}

/** The service's own pipeline on `text`, read to the end: seconds of audio and milliseconds of wall time. */
async function pipeline(c: PipelineCase, text: string): Promise<{ audioSeconds: number; ms: number }> {
  const started = performance.now()
  let samples = 0
  const secondGen = isSecondGen(c.model)
  const pcm = (async function* () {
    for await (const chunk of speak(synth, {
      text,
      voice: c.voice,
      language: 'en-US',
      speed: 1,
      markup: secondGen,
      model: c.model,
      maxNewTokens: null,
      decoding: secondGen ? MODE_PRESETS.expressive : undefined,
    })) {
      samples += chunk.length
      yield chunk
    }
  })()
  const bytes = encodeStream('pcm', pcm)
  let sent = 0
  if (c.sse) for await (const piece of fixedSizePieces(bytes)) sent += audioDeltaFrame(piece).length
  else for await (const piece of bytes) sent += piece.length
  if (sent === 0) throw new Error('The pipeline gave no audio.')
  return { audioSeconds: samples / OUTPUT_SAMPLE_RATE, ms: performance.now() - started }
}

const CASES: PipelineCase[] = [
  {
    label: 'svc-tts-2-latest, expressive → SSE pcm',
    model: SECOND_GEN_MODEL,
    voice: englishVoice,
    sse: true,
  },
  { label: 'svc-tts-mini-0.8 → binary pcm', model: 'svc-tts-mini-0.8', voice: englishVoice, sse: false },
  {
    label: 'cloned voice (formants ×1.1) → binary pcm',
    model: SECOND_GEN_MODEL,
    voice: { ...englishVoice, formantScale: 1.1 },
    sse: false,
  },
]

// Warm every worker and the raw thread, so the first round does not pay for JIT and page faults.
await Promise.all(Array.from({ length: WORKERS }, () => pipeline(CASES[0] as PipelineCase, english)))
await rawEspeak(ENGLISH_LONG, englishVoice)
await pipeline(CASES[0] as PipelineCase, ENGLISH_LONG)

announceSmoke('bench:engine')
console.log(`bench:engine — eSpeak pool of ${WORKERS} workers, one request at a time`)
console.log(
  `\n1. pipeline beside raw eSpeak NG: ${LONG_CHARS.toLocaleString('en')} characters of English (english_40), ${REPEAT} rounds, medians`,
)
const raw: number[] = []
const rawMsPerSecond: number[] = []
const speeds = CASES.map(() => [] as number[])
const ratios = CASES.map(() => [] as number[])
for (let round = 0; round < REPEAT; round++) {
  // The order alternates, so a drift in the machine's load falls on both sides alike.
  const results: Array<{ audioSeconds: number; ms: number }> = []
  const rawFirst = round % 2 === 0
  let r = rawFirst ? await rawEspeak(ENGLISH_LONG, englishVoice) : null
  for (const c of CASES) results.push(await pipeline(c, ENGLISH_LONG))
  r ??= await rawEspeak(ENGLISH_LONG, englishVoice)
  const rawSpeed = r.audioSeconds / (r.ms / 1000)
  raw.push(rawSpeed)
  rawMsPerSecond.push(r.ms / r.audioSeconds)
  results.forEach((p, i) => {
    const speed = p.audioSeconds / (p.ms / 1000)
    speeds[i]?.push(speed)
    ratios[i]?.push(speed / rawSpeed)
  })
}
const x = (v: number) => `${v.toFixed(0)}×`
const range = (values: number[], f: (v: number) => string) =>
  `${f(Math.min(...values))}–${f(Math.max(...values))}`
console.log(
  `${'  '.padEnd(46)}${'× real time'.padStart(12)}${'range'.padStart(12)}${'÷ raw'.padStart(8)}${'range'.padStart(13)}`,
)
console.log(
  `  ${'raw eSpeak NG (same text, same voice)'.padEnd(44)}${x(median(raw)).padStart(12)}${range(raw, x).padStart(12)}`,
)
CASES.forEach((c, i) => {
  const s = speeds[i] as number[]
  const q = ratios[i] as number[]
  console.log(
    `  ${c.label.padEnd(44)}${x(median(s)).padStart(12)}${range(s, x).padStart(12)}${median(q).toFixed(2).padStart(8)}${range(q, (v) => v.toFixed(2)).padStart(13)}`,
  )
})
console.log('  (aim: the first pipeline ÷ raw ≥ 0.60)')

// --- 2. Cost of each stage per second of audio ------------------------------------------------------------------

/** Milliseconds per second of audio of `fn` (which processes `seconds` of audio), median of `batches` runs. */
async function msPerSecond(seconds: number, fn: () => unknown, batches = STAGE_BATCHES): Promise<number> {
  await fn()
  const samples: number[] = []
  for (let b = 0; b < batches; b++) {
    const started = performance.now()
    await fn()
    samples.push((performance.now() - started) / seconds)
  }
  return median(samples)
}

/** About 25 s of real eSpeak output (6 s in smoke mode) at its own rate (22,050 Hz), in eSpeak's own chunks. */
const espeakModule = (await import('@echogarden/espeak-ng-emscripten')).default
const material = await (async () => {
  const espeak = await espeakModule()
  const engine = new espeak.eSpeakNGWorker()
  engine.set_voice('en-us')
  const chunks: Int16Array[] = []
  engine.synthesize(longText(english, MATERIAL_CHARS), (c: Int16Array) => {
    chunks.push(c.slice())
    return false
  })
  return { chunks, rate: engine.get_samplerate() as number }
})()
const source = concat(material.chunks, Int16Array)
const sourceSeconds = source.length / material.rate

function resampleWith(make: () => { push(s: Int16Array): Int16Array; flush(): Int16Array }) {
  const r = make()
  const parts = material.chunks.map((c) => r.push(c))
  parts.push(r.flush())
  return concat(parts, Int16Array)
}
const { ConverterType, create } = libsamplerate
async function libsamplerateWith(
  type: (typeof ConverterType)[keyof typeof ConverterType],
): Promise<Int16Array> {
  const src = await create(1, material.rate, OUTPUT_SAMPLE_RATE, { converterType: type })
  const parts: Int16Array[] = []
  for (const c of material.chunks) {
    const f = new Float32Array(c.length)
    for (let i = 0; i < c.length; i++) f[i] = (c[i] as number) / 32768
    parts.push(Int16Array.from(src.full(f), (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32768)))))
  }
  src.destroy()
  return concat(parts, Int16Array)
}
const speech24 = resampleWith(() => new PolyphaseResampler(material.rate, OUTPUT_SAMPLE_RATE))
const seconds24 = speech24.length / OUTPUT_SAMPLE_RATE
/** The 24 kHz speech in the pipeline's chunk sizes (0.25 s). */
const chunks24 = Array.from({ length: Math.ceil(speech24.length / 6000) }, (_, i) =>
  speech24.subarray(i * 6000, (i + 1) * 6000),
)
async function* stream(chunks: Int16Array[]) {
  for (const c of chunks) yield c.slice()
}
async function drain<T>(it: AsyncIterable<T>) {
  for await (const _ of it);
}

const rawCost = median(rawMsPerSecond)
const stageRows: Array<[string, number | null, string?]> = [
  ['eSpeak NG itself (part 1, in its thread)', rawCost],
  [
    'resampling 22.05 → 24 kHz: polyphase FIR, WASM SIMD (in use)',
    await msPerSecond(sourceSeconds, () =>
      resampleWith(() => new PolyphaseResampler(material.rate, OUTPUT_SAMPLE_RATE)),
    ),
  ],
  [
    '  the same filter in JavaScript (fallback)',
    await msPerSecond(
      sourceSeconds,
      () => resampleWith(() => new PolyphaseResampler(material.rate, OUTPUT_SAMPLE_RATE, { scalar: true })),
      3,
    ),
  ],
  [
    '  libsamplerate sinc medium (before), per job',
    await msPerSecond(
      sourceSeconds,
      async () => {
        const r = await StreamResampler.create(material.rate, OUTPUT_SAMPLE_RATE)
        resampleWith(() => r)
        r.close()
      },
      3,
    ),
  ],
  [
    '  libsamplerate sinc best (reference)',
    await msPerSecond(sourceSeconds, () => libsamplerateWith(ConverterType.SRC_SINC_BEST_QUALITY), 1),
  ],
  ['time-stretch at speed 1 … 2.5 (inside eSpeak’s rates)', null, 'skipped'],
  [
    'time-stretch (WSOLA) at speed 4: tempo ×1.56',
    await msPerSecond(
      seconds24,
      () => {
        const t = new TimeStretcher(700 / 450, OUTPUT_SAMPLE_RATE)
        for (const c of chunks24) t.push(c)
        t.flush()
      },
      3,
    ),
  ],
]
// Prosody planning and text preparation are per character; per second of the audio the same text gives.
const secondsOfLong = (await pipeline(CASES[1] as PipelineCase, ENGLISH_LONG)).audioSeconds
stageRows.push(
  [
    'text preparation: normalize + segment',
    await msPerSecond(secondsOfLong, () =>
      segmentForSynthesis(normalizeText(ENGLISH_LONG, { voiceLanguage: 'en-US' }), {
        locale: 'en-US',
        markup: true,
      }),
    ),
  ],
  [
    'prosody shaping: sampled plan of every segment',
    await msPerSecond(secondsOfLong, () => {
      for (const segment of segmentForSynthesis(ENGLISH_LONG, { locale: 'en-US', markup: true })) {
        const shaper = new ProsodyShaper({ decoding: MODE_PRESETS.expressive, random: Math.random, wpm: 175 })
        planUtterance(segment.text, 'en-US', { markup: true, shaper })
      }
    }),
  ],
  ['prosody shaping without decoding (0.8 models)', null, 'skipped'],
  [
    'formant warping (cloned voices), ×1.1',
    await msPerSecond(
      seconds24,
      () => {
        const w = new FormantWarper(1.1)
        for (const c of chunks24) w.push(c)
        w.flush()
      },
      3,
    ),
  ],
  ['formant warping, voices not cloned', null, 'skipped'],
  [
    'low-pass of svc-tts-micro/nano-0.8',
    await msPerSecond(seconds24, () => drain(lowpass(stream(chunks24), 6500, OUTPUT_SAMPLE_RATE))),
  ],
  [
    `chunking into ${PCM_DELTA_BYTES.toLocaleString('en')}-byte PCM deltas`,
    await msPerSecond(seconds24, async () => {
      for await (const _ of fixedSizePieces(
        (async function* () {
          for (const c of chunks24) yield pcmBytes(c)
        })(),
      ));
    }),
  ],
)
for (const format of ['mp3', 'opus', 'aac', 'flac'] as CompressedFormat[]) {
  stageRows.push([
    `encoding ${format} (whole stream, start-up included)`,
    await msPerSecond(
      seconds24,
      () => drain(encodeCompressed(format, stream(chunks24))),
      Math.min(3, STAGE_BATCHES),
    ),
  ])
}
stageRows.push(['encoding pcm / wav (views of the samples)', null, 'none'])
const deltas: Buffer[] = []
for await (const piece of fixedSizePieces(
  (async function* () {
    for (const c of chunks24) yield pcmBytes(c)
  })(),
))
  deltas.push(piece)
stageRows.push([
  'serialisation: SSE frames (base64 in JSON)',
  await msPerSecond(seconds24, () => {
    for (const d of deltas) audioDeltaFrame(d)
  }),
])
stageRows.push(['serialisation of the binary stream', null, 'none'])

console.log(
  `\n2. cost of each stage per second of audio (one thread, ${seconds24.toFixed(0)} s of eSpeak speech; median of batches)`,
)
console.log(`${'  stage'.padEnd(62)}${'ms / audio s'.padStart(13)}${'÷ eSpeak'.padStart(10)}`)
for (const [label, ms, note] of stageRows) {
  const value = ms === null ? (note ?? '') : ms.toFixed(3)
  const share = ms === null ? '' : `${((100 * ms) / rawCost).toFixed(1)} %`
  console.log(`  ${label.padEnd(60)}${value.padStart(13)}${share.padStart(10)}`)
}

// --- The resampler's quality ----------------------------------------------------------------------------------

/** Signal-to-error ratio in dB of `y` against `reference`, over the whole band or below `bandHz` (FFT blocks). */
function snr(reference: Int16Array, y: Int16Array, bandHz = Number.POSITIVE_INFINITY): number {
  const n = 4096
  const fft = new FFT(n)
  const spectrum = fft.createComplexArray() as number[]
  const bins = Math.min(n / 2, Math.floor((bandHz * n) / OUTPUT_SAMPLE_RATE))
  let signal = 0
  let error = 0
  for (let at = 0; at + n <= reference.length; at += n) {
    for (const [target, isError] of [
      [reference, false],
      [y, true],
    ] as const) {
      const frame = Array.from({ length: n }, (_, i) =>
        isError
          ? (reference[at + i] as number) - ((target as Int16Array)[at + i] as number)
          : (target[at + i] as number),
      )
      fft.realTransform(spectrum, frame)
      let sum = 0
      for (let k = 0; k <= bins; k++)
        sum += (spectrum[2 * k] as number) ** 2 + (spectrum[2 * k + 1] as number) ** 2
      if (isError) error += sum
      else signal += sum
    }
  }
  return 10 * Math.log10(signal / error)
}

/** Gain in dB of the resampler at `hz` (a tone through it, fitted), and the strongest other component in dB. */
function toneResponse(hz: number): { gainDb: number; spurDb: number } {
  const input = Int16Array.from({ length: material.rate }, (_, i) =>
    Math.round(16_000 * Math.sin((2 * Math.PI * hz * i) / material.rate)),
  )
  const r = new PolyphaseResampler(material.rate, OUTPUT_SAMPLE_RATE)
  const y = concat([r.push(input), r.flush()], Int16Array)
  const n = 8192
  const from = 4000
  let s = 0
  let c = 0
  for (let i = from; i < from + n; i++) {
    s += (y[i] as number) * Math.sin((2 * Math.PI * hz * i) / OUTPUT_SAMPLE_RATE)
    c += (y[i] as number) * Math.cos((2 * Math.PI * hz * i) / OUTPUT_SAMPLE_RATE)
  }
  const amplitude = (2 * Math.hypot(s, c)) / n
  // What is left after removing the fitted tone, in the spectrum (Blackman-Harris window), relative to the input tone.
  const fft = new FFT(n)
  const spectrum = fft.createComplexArray() as number[]
  const w = (i: number) =>
    0.35875 -
    0.48829 * Math.cos((2 * Math.PI * i) / n) +
    0.14128 * Math.cos((4 * Math.PI * i) / n) -
    0.01168 * Math.cos((6 * Math.PI * i) / n)
  const frame = Array.from({ length: n }, (_, i) => (y[from + i] as number) * w(i))
  fft.realTransform(spectrum, frame)
  const toneBin = Math.round((hz * n) / OUTPUT_SAMPLE_RATE)
  const windowSum = Array.from({ length: n }, (_, i) => w(i)).reduce((a, b) => a + b, 0)
  let spur = 0
  for (let k = 1; k < n / 2; k++) {
    if (Math.abs(k - toneBin) <= 8) continue
    spur = Math.max(spur, Math.hypot(spectrum[2 * k] as number, spectrum[2 * k + 1] as number))
  }
  return {
    gainDb: 20 * Math.log10(amplitude / 16_000),
    spurDb: 20 * Math.log10((2 * spur) / windowSum / 16_000),
  }
}

const best = await libsamplerateWith(ConverterType.SRC_SINC_BEST_QUALITY)
const medium = await libsamplerateWith(ConverterType.SRC_SINC_MEDIUM_QUALITY)
const fastest = await libsamplerateWith(ConverterType.SRC_SINC_FASTEST)
const length = Math.min(best.length, speech24.length, medium.length, fastest.length) - 200
const cut = (a: Int16Array) => a.subarray(0, length)
console.log('\nresampler quality, on the same eSpeak speech, against libsamplerate’s best sinc (SNR, dB)')
console.log(
  `${'  converter'.padEnd(40)}${'0–12 kHz'.padStart(10)}${'0–9.6 kHz'.padStart(11)}${'0–4 kHz'.padStart(10)}`,
)
for (const [label, y] of [
  ['polyphase FIR (in use)', speech24],
  ['libsamplerate sinc medium (before)', medium],
  ['libsamplerate sinc fastest', fastest],
] as const) {
  console.log(
    `  ${label.padEnd(38)}${snr(cut(best), cut(y)).toFixed(1).padStart(10)}${snr(cut(best), cut(y), 9600).toFixed(1).padStart(11)}${snr(cut(best), cut(y), 4000).toFixed(1).padStart(10)}`,
  )
}
let lo = Number.POSITIVE_INFINITY
let hi = Number.NEGATIVE_INFINITY
let worstSpur = Number.NEGATIVE_INFINITY
for (let hz = 50; hz <= 9600; hz += TONE_STEP_HZ) {
  const { gainDb, spurDb } = toneResponse(hz)
  lo = Math.min(lo, gainDb)
  hi = Math.max(hi, gainDb)
  worstSpur = Math.max(worstSpur, spurDb)
}
const edge = [10_000, 10_500, 11_000].map((hz) => `${hz / 1000} kHz ${toneResponse(hz).gainDb.toFixed(1)} dB`)
console.log(
  `  tones 50 Hz–9.6 kHz every ${TONE_STEP_HZ} Hz: gain ${lo.toFixed(3)} … ${hi.toFixed(3)} dB; strongest image or alias ${worstSpur.toFixed(1)} dB below the tone`.replace(
    `${worstSpur.toFixed(1)} dB below`,
    `${(-worstSpur).toFixed(1)} dB below`,
  ),
)
console.log(`  above the passband: ${edge.join(', ')}`)

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

if (process.env.TABLES !== '0') {
  console.log(`\n3. per language and per model, median of ${TABLE_REPEAT} runs`)
  console.log('RTF = wall time / audio time (under 1: faster than real time); first = first audio chunk\n')

  console.log('per language (svc-tts-2-latest, expressive preset, markup on)')
  console.log(
    `${'voice'.padEnd(15)}${cell('sentence RTF', 13)}${cell('first ms', 10)}${cell('audio s', 9)}   ${cell('5,000 ch RTF', 13)}${cell('first ms', 10)}${cell('audio s', 9)}${cell('RTF vs en', 11)}`,
  )
  const languageRows: Array<
    [string, Awaited<ReturnType<typeof measure>>, Awaited<ReturnType<typeof measure>>]
  > = []
  // Smoke mode: English and one other language, the second-generation model and the 0.8 mini, enough to run each path.
  const languages = Object.entries(SENTENCES).filter(
    ([id]) => !SMOKE || id === 'english_40' || id === 'german_39',
  )
  for (const [voiceId, sentence] of languages) {
    const short = await measure(voiceId, SECOND_GEN_MODEL, sentence, TABLE_REPEAT)
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
  const modelRows: Array<
    [ModelId, Awaited<ReturnType<typeof measure>>, Awaited<ReturnType<typeof measure>>]
  > = []
  const models = [SECOND_GEN_MODEL, ...LEGACY_MODELS].filter(
    (m) => !SMOKE || m === SECOND_GEN_MODEL || m === 'svc-tts-mini-0.8',
  )
  for (const model of models as ModelId[]) {
    const voiceId = isSecondGen(model) ? 'english_40' : 'Bella'
    const short = await measure(voiceId, model, english, TABLE_REPEAT)
    const long = await measure(voiceId, model, longText(english, LONG_CHARS), 1)
    modelRows.push([model, short, long])
  }
  const miniLong = modelRows.find(([m]) => m === 'svc-tts-mini-0.8')?.[2].rtf ?? Number.NaN
  for (const [model, short, long] of modelRows) {
    console.log(
      `${model.padEnd(19)}${cell(fmtRtf(short.rtf), 13)}${cell(short.firstChunkMs.toFixed(0), 10)}${cell(short.audioSeconds.toFixed(1), 9)}   ${cell(fmtRtf(long.rtf), 13)}${cell(long.firstChunkMs.toFixed(0), 10)}${cell(long.audioSeconds.toFixed(0), 9)}${cell(`${(long.rtf / miniLong).toFixed(2)}×`, 13)}`,
    )
  }

  /** Milliseconds per 1,000 characters of `fn` over `text`, median of several timed batches after a warm-up. */
  function costPer1000(text: string, fn: (text: string) => unknown): number {
    for (let i = 0; i < 3; i++) fn(text)
    const samples: number[] = []
    for (let batch = 0; batch < TEXT_BATCHES; batch++) {
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
}

await synth.close()
await rawThread.terminate()
