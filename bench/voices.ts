/**
 * `npm run bench:voices`: saved-voice creation time (p50/p95) for 5 s and 30 s samples through the real service,
 * the speaker embedding's cost per second of audio, the verification equal error rate with its threshold, and the
 * cloning approximation measured on reference speakers (eSpeak voices and speakers cut from the AMI excerpts):
 * F0-median error and speaker similarity of the clone against the plain base voice.
 *
 * Smoke mode (`--smoke`, bench/smoke.ts): one run of a 5 s sample, four meetings, three cloning references, and the
 * real-speech section (a speaker model fitted on every recording) left out.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { concat } from '../core/concat.ts'
import { PREPARATION_VERSION, prepareVoice } from '../server/engine/cloning/index.ts'
import { decodeAudio } from '../server/engine/codecs/decode.ts'
import { createEspeakSynthesizer, speak, type VoiceParams } from '../server/engine/index.ts'
import { summarizePitch, trackPitch } from '../server/engine/markup/pitch.ts'
import { cosineSimilarity } from '../server/engine/speaker/embedder.ts'
import { createSpeakerEmbedder, DEFAULT_VERIFICATION_THRESHOLD } from '../server/engine/speaker/index.ts'
import { createSpeechService } from '../server/speech/app.ts'
import { spokenPcm, wavFile } from '../server/testing/spoken-audio.ts'
import { loadMeetings } from './eval-diarization.ts'
import { announceSmoke, count, SMOKE } from './smoke.ts'
import { measureEer, singleSpeakerSegments } from './speaker-eer.ts'
import { percentile } from './stats.ts'

import { benchRealSpeech } from './voices-real.ts'

// `VOICES_BENCH=real`: only the real-speech section (consent screen and speaker verification on real people).
if (process.env.VOICES_BENCH === 'real') {
  await benchRealSpeech()
  process.exit(0)
}

const RUNS = count(8, 1, 'RUNS')
const SAMPLE_SECONDS = SMOKE ? [5] : [5, 30]
const MEETINGS = count(Number.POSITIVE_INFINITY, 4)
const REFERENCES = count(10, 3)
announceSmoke('bench:voices')
const TEXT =
  'The weather today is bright and calm. The river runs slowly past the old mill, and the children play by the bridge while their parents talk about the harvest.'

const synth = await createEspeakSynthesizer({ workers: 2 })
const embedder = createSpeakerEmbedder()

async function pcmSeconds(seconds: number, voice = 'english_40'): Promise<Int16Array> {
  const parts: Int16Array[] = []
  let total = 0
  while (total < seconds * 24_000) {
    const pcm = await spokenPcm(synth, TEXT, voice)
    parts.push(pcm)
    total += pcm.length
  }
  return concat(parts, Int16Array).subarray(0, seconds * 24_000)
}

async function toMono16k(pcm: Int16Array): Promise<Float32Array> {
  return (await decodeAudio(wavFile(pcm), { targetRate: 16_000 })).samples
}

// 1. Creation time through the real HTTP service (extension form, with and without a transcript).
const dir = mkdtempSync(join(tmpdir(), 'bench-voices-'))
const service = await createSpeechService({ dataDir: dir, synthesizer: synth })
const base = await service.app.listen({ port: 0, host: '127.0.0.1' })
const key = (await service.keys.create({ kind: 'organization', org: 'bench' })).key

async function createVoice(sample: Buffer, transcript?: string): Promise<number> {
  const form = new FormData()
  form.append('name', 'bench')
  if (transcript) form.append('reference_transcript', transcript)
  form.append('audio_sample', new Blob([new Uint8Array(sample)]), 'sample.wav')
  const started = performance.now()
  const res = await fetch(`${base}/v1/audio/voices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  })
  if (res.status !== 200) throw new Error(`voice creation failed: ${res.status} ${await res.text()}`)
  return performance.now() - started
}

console.log(`Saved-voice creation, ${RUNS} runs each (preparation ${PREPARATION_VERSION})`)
for (const seconds of SAMPLE_SECONDS) {
  const sample = wavFile(await pcmSeconds(seconds))
  for (const transcript of [undefined, TEXT]) {
    const times: number[] = []
    for (let i = 0; i < RUNS; i++) times.push(await createVoice(sample, transcript))
    console.log(
      `  ${String(seconds).padStart(2)} s sample, ${transcript ? 'with transcript   ' : 'recognizer counts '}` +
        `p50 ${percentile(times, 50).toFixed(0)} ms, p95 ${percentile(times, 95).toFixed(0)} ms`,
    )
  }
}
await service.close()
rmSync(dir, { recursive: true, force: true })

// 2. Embedding cost per second of audio, on real meeting audio.
const meetings = (await loadMeetings()).slice(0, MEETINGS)
const meetingAudio = meetings[0]?.audio as Float32Array
const embedRuns: number[] = []
for (let i = 0; i < RUNS; i++) {
  const started = performance.now()
  embedder.embed(meetingAudio)
  embedRuns.push(performance.now() - started)
}
const audioSeconds = meetingAudio.length / 16_000
console.log(
  `\nEmbedding (${embedder.version}): ${(percentile(embedRuns, 50) / audioSeconds).toFixed(2)} ms per second of audio (p50 over ${RUNS} × ${audioSeconds.toFixed(0)} s)`,
)

// 3. Verification equal error rate.
const eer = await measureEer({ meetings })
console.log(
  `Verification on ${eer.segments.length} AMI segments (${eer.speakers} speakers, ${eer.samePairs} same / ${eer.differentPairs} different pairs):`,
)
console.log(
  `  EER ${(100 * eer.shipped.eer).toFixed(1)}% at cosine ${eer.shipped.threshold.toFixed(3)} (shipped normalization)`,
)
console.log(
  `  EER ${(100 * eer.leaveFilesOut.eer).toFixed(1)}% at cosine ${eer.leaveFilesOut.threshold.toFixed(3)} (leave files out)`,
)
console.log(`  deployment default threshold: ${DEFAULT_VERIFICATION_THRESHOLD}`)

// 4. Cloning: each reference against its clone and against the base voice the clone starts from.
async function render(params: VoiceParams, language: string): Promise<Int16Array> {
  const parts: Int16Array[] = []
  for await (const c of speak(synth, {
    text: TEXT,
    voice: params,
    language,
    speed: 1,
    markup: false,
    maxNewTokens: null,
  }))
    parts.push(c)
  return concat(parts, Int16Array)
}
const medianHz16k = (audio: Float32Array) =>
  summarizePitch(
    trackPitch(
      Int16Array.from(audio, (x) => x * 32767),
      16_000,
      { minHz: 55, maxHz: 500 },
    ),
  ).medianHz

const references: { name: string; audio: Float32Array }[] = []
for (const voice of ['marcus_deep_male_21', 'english_40', 'amber_warm_female_18', 'pixie_06'].slice(
  0,
  REFERENCES,
)) {
  references.push({ name: `eSpeak ${voice}`, audio: await toMono16k(await spokenPcm(synth, TEXT, voice)) })
}
const seen = new Set<string>()
for (const meeting of meetings) {
  for (const segment of singleSpeakerSegments(meeting, 4, 8)) {
    if (seen.has(segment.speaker) || references.length >= REFERENCES) continue
    seen.add(segment.speaker)
    references.push({
      name: `AMI ${segment.speaker} (${meeting.id})`,
      audio: meeting.audio.subarray(Math.round(segment.start * 16_000), Math.round(segment.end * 16_000)),
    })
  }
}

console.log('\nCloning approximation: F0 error (semitones) and speaker similarity (cosine) to the reference')
console.log('  reference                         ref F0   clone F0 err   base F0 err   clone sim   base sim')
const errors = {
  clone: [] as number[],
  base: [] as number[],
  cloneSim: [] as number[],
  baseSim: [] as number[],
}
for (const ref of references) {
  const language = 'en-US'
  const { params } = await prepareVoice(synth, { audio: ref.audio, sampleRate: 16_000, language })
  // The base voice: the variant the clone starts from, at eSpeak's neutral settings and without formant scaling.
  const baseParams: VoiceParams = { espeakVoice: params.espeakVoice, pitch: 50, range: 50, rate: 175 }
  const [clone, baseline] = [
    await toMono16k(await render(params, language)),
    await toMono16k(await render(baseParams, language)),
  ]
  const refHz = medianHz16k(ref.audio)
  const semis = (a: number) => Math.abs(12 * Math.log2(a / refHz))
  const refEmbedding = embedder.embed(ref.audio)
  const sim = (audio: Float32Array) => {
    const e = embedder.embed(audio)
    return refEmbedding && e ? cosineSimilarity(refEmbedding, e) : Number.NaN
  }
  const row = {
    clone: semis(medianHz16k(clone)),
    base: semis(medianHz16k(baseline)),
    cloneSim: sim(clone),
    baseSim: sim(baseline),
  }
  for (const k of Object.keys(errors) as (keyof typeof errors)[]) errors[k].push(row[k])
  console.log(
    `  ${ref.name.padEnd(32)} ${refHz.toFixed(0).padStart(5)} Hz ${row.clone.toFixed(2).padStart(9)} ${row.base.toFixed(2).padStart(13)} ${row.cloneSim.toFixed(3).padStart(11)} ${row.baseSim.toFixed(3).padStart(10)}`,
  )
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
console.log(
  `  mean over ${references.length} speakers: F0 error clone ${mean(errors.clone).toFixed(2)} vs base ${mean(errors.base).toFixed(2)} semitones; similarity clone ${mean(errors.cloneSim).toFixed(3)} vs base ${mean(errors.baseSim).toFixed(3)}`,
)
await synth.close()

// 5. The consent screen and speaker verification on real people (minutes of model fitting: not in smoke mode).
if (SMOKE) console.log('\nReal speech: left out of the smoke run (npm run bench:voices runs it)')
else await benchRealSpeech()
