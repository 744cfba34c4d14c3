/**
 * `npm run bench:transcribe`: transcription on real meeting audio (the AMI excerpts in shared/data/diarization).
 *
 * 1. Real-time factor (wall seconds per audio second; below 1 is faster than real time) of recognition (an upload
 *    without diarization), of diarization (the diarizer alone) and of an upload with both, for a 30 s file (trn00)
 *    and a 10 min file (trn00…trn09 joined, twice), with the peak memory of the process and its children
 *    (PocketSphinx runs as a subprocess); then the diarizer alone on 12 and 60 min recordings with known truth
 *    (bench/long-recording.ts: the excerpts with FSDD turns between them), with its DER there.
 * 2. Realtime sessions with diarization: the excerpts streamed at real-time pace in 100 ms appends. Live words: each
 *    word's delay from the moment it has been spoken (the end of the word in the excerpt, placed by decoding the whole
 *    excerpt offline: the known positions) to its first appearance in a delta, over the live words that align with the
 *    offline ones; beside it the live transcript's word error against that offline decode's words inside the
 *    session's items (no human transcript of the excerpts exists, so this measures what live decoding loses against
 *    decoding the whole excerpt at once, not absolute accuracy). Then, for each turn, the delay from the end of its
 *    audio to its speakers event, p50/p95. `REALTIME_FILES` sets how many excerpts (default 3, i.e. 90 s of
 *    streaming); `UPLOADS=0` skips part 1.
 * 3. Live words by transport: the same excerpts with diarization off, over the WebSocket and over a WebRTC call (a
 *    libwebrtc peer sending Opus), one after the other: the word delay and word error as in part 2.
 *
 * Smoke mode (`--smoke`, bench/smoke.ts): the first 10 s of trn00 only, uploaded once, and its first 8 s streamed.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { concat } from '../core/concat.ts'
import { loadConfig } from '../server/config.ts'
import { decodeAudio } from '../server/engine/codecs/decode.ts'
import { createDiarizer, diarizationError } from '../server/engine/diarization/index.ts'
import { parseRttm } from '../server/engine/diarization/rttm.ts'
import { createPocketSphinxRecognizer, type RecognizedWord } from '../server/engine/recognition/index.ts'
import { createSpeechService } from '../server/speech/app.ts'
import { meetingFile } from '../server/testing/meetings.ts'
import { callService } from '../server/testing/webrtc-peer.ts'
import { floatToPcm16, floatToPcm16Wav } from '../server/wav.ts'
import { longRecording } from './long-recording.ts'
import { announceSmoke, count, SMOKE } from './smoke.ts'
import { percentile } from './stats.ts'

const REALTIME_FILES = count(3, 1, 'REALTIME_FILES')
const UPLOADS = process.env.UPLOADS !== '0'
const EXCERPTS = count(10, 1)
/** How much of each excerpt is streamed in the realtime part: all of it, or 8 s in smoke mode. */
const STREAMED_SECONDS = SMOKE ? 8 : Number.POSITIVE_INFINITY
/** Meeting microphones are distant and quiet: the session's VAD threshold as the diarizer uses it. */
const VAD_THRESHOLD = 0.3
const RATE = 16_000

/** Resident memory of this process and all its descendants, in bytes (Linux /proc). */
function treeRss(): number {
  const children = new Map<number, number[]>()
  const rss = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const ppid = Number(fields[1])
      const pages = Number(fields[21])
      rss.set(Number(entry), pages * 4096)
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
    } catch {
      // The process ended while we looked.
    }
  }
  let total = 0
  const stack = [process.pid]
  while (stack.length > 0) {
    const pid = stack.pop() as number
    total += rss.get(pid) ?? 0
    stack.push(...(children.get(pid) ?? []))
  }
  return total
}

/** Runs `work` while sampling the process tree's memory; returns its wall time and the peak. */
async function measured<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; peakMb: number }> {
  let peak = treeRss()
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRss())
  }, 100)
  const started = performance.now()
  try {
    const result = await work()
    return { result, seconds: (performance.now() - started) / 1000, peakMb: peak / 1024 / 1024 }
  } finally {
    clearInterval(timer)
  }
}

const excerpts: Float32Array[] = []
for (let i = 0; i < EXCERPTS; i++) {
  const bytes = readFileSync(meetingFile(`trn0${i}.wav`))
  excerpts.push((await decodeAudio(bytes, { targetRate: RATE })).samples)
}
const joined = concat([...excerpts, ...excerpts], Float32Array)
const smokeClip = (excerpts[0] as Float32Array).subarray(0, 10 * RATE)
const files = SMOKE
  ? [{ label: '10 s (trn00 start)', audio: smokeClip, wav: floatToPcm16Wav(smokeClip, RATE) }]
  : [
      {
        label: '30 s (trn00)',
        audio: excerpts[0] as Float32Array,
        wav: readFileSync(meetingFile('trn00.wav')),
      },
      { label: '10 min (trn00-09 ×2)', audio: joined, wav: floatToPcm16Wav(joined, RATE) },
    ]

const dir = mkdtempSync(join(tmpdir(), 'bench-transcribe-'))
// POCKETSPHINX_STREAMING=off compares the decoder that decodes again (docs/transcription.md).
const { recognition } = loadConfig().speech
const service = await createSpeechService({ dataDir: dir, recognition })
const base = await service.app.listen({ port: 0, host: '127.0.0.1' })
const key = (await service.keys.create({ kind: 'organization', org: 'bench' })).key
const diarizer = createDiarizer()

async function upload(wav: Buffer, fields: Record<string, string>) {
  const form = new FormData()
  form.append('file', new Blob([new Uint8Array(wav)]), 'audio.wav')
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  const res = await fetch(`${base}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  })
  const body = (await res.json()) as { text: string; diarization?: { speakers: string[]; turns?: unknown[] } }
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${JSON.stringify(body)}`)
  return body
}

announceSmoke('bench:transcribe')
console.log(
  'bench:transcribe — real-time factor = wall s / audio s (lower is faster); peak = this process + children',
)
console.log(
  `idle service (eSpeak workers, VAD model, decoded test audio): ${(treeRss() / 1024 / 1024).toFixed(0)} MB`,
)
console.log('file                    what                          RTF     wall s   peak MB   notes')
for (const file of UPLOADS ? files : []) {
  const duration = file.audio.length / RATE
  const row = (what: string, r: { seconds: number; peakMb: number }, notes = '') =>
    console.log(
      `${file.label.padEnd(23)} ${what.padEnd(29)} ${(r.seconds / duration).toFixed(3).padStart(6)} ${r.seconds.toFixed(1).padStart(8)} ${r.peakMb.toFixed(0).padStart(9)}   ${notes}`,
    )
  const recognition = await measured(() => upload(file.wav, { response_format: 'json' }))
  row(
    'recognition (upload)',
    recognition,
    `${recognition.result.text.split(/\s+/).filter(Boolean).length} words`,
  )
  const diarization = await measured(() => diarizer.diarize(file.audio))
  row(
    'diarization (diarizer alone)',
    diarization,
    `${new Set(diarization.result.map((s) => s.speaker)).size} speakers`,
  )
  const both = await measured(() =>
    upload(file.wav, { diarization: 'true', response_format: 'verbose_json' }),
  )
  row(
    'upload with diarization',
    both,
    `${both.result.diarization?.speakers.length ?? 0} speakers, ${both.result.diarization?.turns?.length ?? 'no'} turns`,
  )
}

// Long recordings with known truth (bench/long-recording.ts), the diarizer alone: its speed, memory and DER.
for (const repeats of UPLOADS && !SMOKE ? [1, 5] : []) {
  const long = await longRecording(repeats)
  const duration = long.audio.length / RATE
  const r = await measured(() => diarizer.diarize(long.audio))
  const e = diarizationError(long.truth, r.result)
  const pct = (x: number) => ((100 * x) / e.reference).toFixed(1)
  console.log(
    `${`${(duration / 60).toFixed(0)} min (excerpts+FSDD)`.padEnd(23)} ${'diarization (diarizer alone)'.padEnd(29)} ${(r.seconds / duration).toFixed(3).padStart(6)} ${r.seconds.toFixed(1).padStart(8)} ${r.peakMb.toFixed(0).padStart(9)}   ` +
      `${new Set(r.result.map((s) => s.speaker)).size} speakers of ${new Set(long.truth.map((t) => t.speaker)).size}, DER ${pct(e.missed + e.falseAlarm + e.confusion)} % (${pct(e.missed)}/${pct(e.falseAlarm)}/${pct(e.confusion)}), audio ${((long.audio.length * 4) / 1024 / 1024).toFixed(0)} MB`,
  )
}

// Realtime: stream excerpts at real-time pace with diarization on; time each live word and each turn's speakers event.
const delaysFromAudioEnd: number[] = []
const delaysFromSpeechEnd: number[] = []
const delaysFromWords: number[] = []
/** Live words: a word's first appearance in a delta, after the audio up to its end (offline word times) was sent. */
const wordDelays: number[] = []
const wordErrors = { errors: 0, reference: 0 }
let turns = 0
let unattributed = 0
/** Who spoke: 10 ms frames of one reference speaker alone inside the items, and those the speakers events named right. */
const naming = { frames: 0, right: 0, unnamed: 0 }
const reference = parseRttm(readFileSync(meetingFile('train.rttm'), 'utf8'))
const offlineRecognizer = createPocketSphinxRecognizer(recognition)
for (let f = 0; f < Math.min(REALTIME_FILES, excerpts.length); f++) {
  const audio = (excerpts[f] as Float32Array).subarray(0, STREAMED_SECONDS * RATE)
  // The known positions: the whole excerpt decoded offline, before the session starts (not timed).
  const offline = (await offlineRecognizer.transcribe(audio)).words
  const socket = new WebSocket(`${base.replace('http', 'ws')}/v1/realtime`, {
    headers: { authorization: `Bearer ${key}` },
  })
  await new Promise((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
  })
  /** Wall time at which append n (the session clock's samples from n×100 ms) was sent. */
  const sentAt: number[] = []
  const wallAt = (ms: number) => sentAt[Math.min(sentAt.length - 1, Math.floor(ms / 100))] as number
  const stoppedAt = new Map<string, number>()
  const endOf = new Map<string, number>()
  const completedAt = new Map<string, number>()
  let speakersEvents = 0
  let commits = 0
  /** Every live word in the order the deltas brought them, with its arrival. */
  const live: Array<{ text: string; arrived: number }> = []
  /** Each item's stretch of the session clock, ms. */
  const items: Array<[number, number]> = []
  /** The speakers events' segments, ms on the session clock. */
  const named: Array<{ speaker: string | null; start: number; end: number }> = []
  socket.on('message', (data) => {
    const m = JSON.parse(String(data)) as Record<string, unknown>
    if (m.type === 'conversation.item.input_audio_transcription.delta') {
      const arrived = performance.now()
      for (const text of String(m.delta).split(/\s+/).filter(Boolean)) live.push({ text, arrived })
    }
    if (m.type === 'input_audio_buffer.speech_stopped')
      stoppedAt.set(String(m.item_id), Number(m.audio_end_ms))
    if (m.type === 'input_audio_buffer.committed') commits++
    if (m.type === 'conversation.item.input_audio_transcription.completed') {
      items.push([Number(m.audio_start_ms), Number(m.audio_end_ms)])
      completedAt.set(String(m.item_id), performance.now())
      endOf.set(String(m.item_id), Number(m.audio_end_ms))
    }
    if (m.type === 'conversation.item.input_audio_transcription.speakers') {
      const now = performance.now()
      const id = String(m.item_id)
      const end = endOf.get(id)
      if (end !== undefined) delaysFromAudioEnd.push(now - wallAt(end))
      const words = completedAt.get(id)
      if (words !== undefined) delaysFromWords.push(now - words)
      const stopped = stoppedAt.get(id)
      if (stopped !== undefined) delaysFromSpeechEnd.push(now - wallAt(stopped))
      turns++
      if (m.speaker === null) unattributed++
      for (const seg of m.segments as Array<{
        speaker: string | null
        segment_start_ms: number
        segment_end_ms: number
      }>)
        named.push({ speaker: seg.speaker, start: seg.segment_start_ms, end: seg.segment_end_ms })
      speakersEvents++
    }
  })
  socket.send(
    JSON.stringify({
      type: 'session.update',
      session: {
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 16000 },
            turn_detection: { type: 'server_vad', threshold: VAD_THRESHOLD },
          },
        },
        diarization: { enabled: true, max_speakers: 4 },
      },
    }),
  )
  const started = performance.now()
  // One second of silence after the excerpt lets its last turn end at a pause.
  const padded = new Float32Array(audio.length + RATE)
  padded.set(audio)
  await streamAtRealTime(socket, padded, started, sentAt)
  const deadline = performance.now() + 60_000
  while (speakersEvents < commits && performance.now() < deadline)
    await new Promise((r) => setTimeout(r, 100))
  socket.close()
  // The reference: the offline words inside the session's items (speech the turn detector missed is not the
  // recognizer's to find, and would weigh the same before and after any change to it).
  const inItems = offline.filter((w) =>
    items.some(([from, to]) => ((w.start + w.end) / 2) * 1000 >= from && ((w.start + w.end) / 2) * 1000 < to),
  )
  scoreNaming(reference.get(`trn0${f}`) ?? [], named)
  const aligned = alignWords(inItems, live)
  wordErrors.errors += aligned.errors
  wordErrors.reference += inItems.length
  for (const { spoken, heard } of aligned.matches) wordDelays.push(heard.arrived - wallAt(spoken.end * 1000))
}
await offlineRecognizer.close()
console.log(
  `\nrealtime, ${Math.min(REALTIME_FILES, excerpts.length)} excerpts streamed at 1×, diarization on: ${turns} turns (${unattributed} unattributed)`,
)
const fmt = (values: number[]) =>
  `p50 ${percentile(values, 50).toFixed(0)} ms, p95 ${percentile(values, 95).toFixed(0)} ms (n=${values.length})`
console.log(
  `  a word spoken (its end) → its first appearance in a delta (aim p50 ≤ 1.5 s, p95 ≤ 3 s): ${fmt(wordDelays)}\n` +
    `  live transcript's word error against the offline decode of the whole excerpt, within the items: ${((100 * wordErrors.errors) / Math.max(1, wordErrors.reference)).toFixed(1)} % (${wordErrors.errors} errors / ${wordErrors.reference} words)`,
)
console.log(`  end of the turn's audio → speakers event: ${fmt(delaysFromAudioEnd)}`)
console.log(
  `  speech of one reference speaker inside the items named as them (labels mapped one to one per excerpt, most time first): ${((100 * naming.right) / Math.max(1, naming.frames)).toFixed(1)} % of ${(naming.frames / 100).toFixed(0)} s (${((100 * naming.unnamed) / Math.max(1, naming.frames)).toFixed(1)} % unattributed)`,
)
console.log(`  the turn's words (completed) → speakers event: ${fmt(delaysFromWords)}`)
console.log(
  `  end of speech (speech_stopped) → speakers event, includes the 500 ms pause: ${fmt(delaysFromSpeechEnd)}`,
)

// Live words by transport: the same excerpts, diarization off, over the WebSocket (100 ms appends) and over a WebRTC
// call (a libwebrtc peer, Opus, 10 ms frames), one after the other.
const byTransport: Record<'WebSocket' | 'WebRTC', { delays: number[]; errors: number; reference: number }> = {
  WebSocket: { delays: [], errors: 0, reference: 0 },
  WebRTC: { delays: [], errors: 0, reference: 0 },
}
const transportRecognizer = createPocketSphinxRecognizer(recognition)
for (let f = 0; f < Math.min(REALTIME_FILES, excerpts.length); f++) {
  const audio = (excerpts[f] as Float32Array).subarray(0, STREAMED_SECONDS * RATE)
  const offline = (await transportRecognizer.transcribe(audio)).words
  const padded = new Float32Array(audio.length + RATE)
  padded.set(audio)
  for (const transport of ['WebSocket', 'WebRTC'] as const) {
    const { live, items, wallAt } = await streamLive(transport, padded)
    const inItems = offline.filter((w) =>
      items.some(
        ([from, to]) => ((w.start + w.end) / 2) * 1000 >= from && ((w.start + w.end) / 2) * 1000 < to,
      ),
    )
    const aligned = alignWords(inItems, live)
    const totals = byTransport[transport]
    totals.errors += aligned.errors
    totals.reference += inItems.length
    for (const { spoken, heard } of aligned.matches)
      totals.delays.push(heard.arrived - wallAt(spoken.end * 1000))
  }
}
await transportRecognizer.close()
console.log(`
live words by transport, the same ${Math.min(REALTIME_FILES, excerpts.length)} excerpts, diarization off:`)
for (const [transport, t] of Object.entries(byTransport))
  console.log(
    `  ${transport.padEnd(9)}  a word spoken → first in a delta: ${fmt(t.delays)}; word error ${((100 * t.errors) / Math.max(1, t.reference)).toFixed(1)} % of ${t.reference}`,
  )

await service.close()
rmSync(dir, { recursive: true, force: true })
// libwebrtc's threads outlive a natural exit once a peer connection was made (a segfault as Node tears down);
// an explicit exit ends the process cleanly, as the servers' own signal handlers do.
process.exit(0)

/**
 * One realtime session streaming `audio` (16 kHz) at real-time pace over `transport`: the live words with their
 * arrival, the items' stretches (ms on the session clock) and the wall time at which the audio up to a moment was sent.
 */
async function streamLive(transport: 'WebSocket' | 'WebRTC', audio: Float32Array) {
  const live: Array<{ text: string; arrived: number }> = []
  const items: Array<[number, number]> = []
  let completed = 0
  let commits = 0
  const onEvent = (m: Record<string, unknown>) => {
    if (m.type === 'conversation.item.input_audio_transcription.delta') {
      const arrived = performance.now()
      for (const text of String(m.delta).split(/\s+/).filter(Boolean)) live.push({ text, arrived })
    }
    if (m.type === 'input_audio_buffer.committed') commits++
    if (m.type === 'conversation.item.input_audio_transcription.completed') {
      items.push([Number(m.audio_start_ms), Number(m.audio_end_ms)])
      completed++
    }
  }
  const update = {
    type: 'session.update',
    session: {
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 16000 },
          turn_detection: { type: 'server_vad', threshold: VAD_THRESHOLD },
        },
      },
    },
  }
  /** Every turn committed in the stream is transcribed (a second's grace for the last commit; a minute at most). */
  const settled = async () => {
    await new Promise((r) => setTimeout(r, 1000))
    const deadline = performance.now() + 60_000
    while (completed < commits && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  }
  let started = 0
  if (transport === 'WebRTC') {
    const call = await callService(base, key)
    if (call.response.status !== 201) throw new Error(`the call was refused: ${call.response.status}`)
    await call.opened
    await call.next((m) => m.type === 'session.created')
    call.send(update)
    await call.next((m) => m.type === 'session.updated')
    const seen = { count: 0 }
    const pump = setInterval(() => {
      for (; seen.count < call.messages.length; seen.count++)
        onEvent(call.messages[seen.count] as Record<string, unknown>)
    }, 5)
    started = performance.now()
    await call.play(audio)
    await settled()
    clearInterval(pump)
    call.close()
  } else {
    const socket = new WebSocket(`${base.replace('http', 'ws')}/v1/realtime`, {
      headers: { authorization: `Bearer ${key}` },
    })
    await new Promise((resolve, reject) => {
      socket.once('open', resolve)
      socket.once('error', reject)
    })
    socket.on('message', (data) => onEvent(JSON.parse(String(data)) as Record<string, unknown>))
    socket.send(JSON.stringify(update))
    started = performance.now()
    await streamAtRealTime(socket, audio, started)
    await settled()
    socket.close()
  }
  // The audio up to `ms` was sent once `ms` of real time had passed from the start of the stream.
  return { live, items, wallAt: (ms: number) => started + ms }
}

/** Sends `audio` to a realtime socket in 100 ms appends at its real pace from `started`, noting when each went. */
async function streamAtRealTime(
  socket: WebSocket,
  audio: Float32Array,
  started: number,
  sentAt: number[] = [],
) {
  const piece = RATE / 10
  for (let i = 0, n = 0; i < audio.length; i += piece, n++) {
    const wait = started + n * 100 - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    sentAt.push(performance.now())
    const bytes = floatToPcm16(audio.subarray(i, i + piece))
    socket.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: bytes.toString('base64') }))
  }
}

/**
 * Aligns the live words to the offline ones (word-level Levenshtein): the errors (substitutions, deletions,
 * insertions) and the pairs that agree, each live word with the offline word that places it in the audio.
 */
function alignWords<T extends { text: string }>(
  reference: readonly RecognizedWord[],
  heard: readonly T[],
): { errors: number; matches: Array<{ spoken: RecognizedWord; heard: T }> } {
  const n = reference.length
  const m = heard.length
  const cost = Array.from({ length: n + 1 }, (_, i) => Array.from({ length: m + 1 }, (_, j) => i + j))
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const same = (reference[i - 1] as RecognizedWord).text === (heard[j - 1] as T).text
      const row = cost[i] as number[]
      const up = cost[i - 1] as number[]
      row[j] = Math.min(
        (up[j - 1] as number) + (same ? 0 : 1),
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
      )
    }
  }
  const matches: Array<{ spoken: RecognizedWord; heard: T }> = []
  for (let i = n, j = m; i > 0 && j > 0; ) {
    const spoken = reference[i - 1] as RecognizedWord
    const word = heard[j - 1] as T
    const here = (cost[i] as number[])[j] as number
    if (spoken.text === word.text && here === ((cost[i - 1] as number[])[j - 1] as number)) {
      matches.push({ spoken, heard: word })
      i--
      j--
    } else if (here === ((cost[i - 1] as number[])[j - 1] as number) + 1) {
      i--
      j--
    } else if (here === ((cost[i - 1] as number[])[j] as number) + 1) i--
    else j--
  }
  return { errors: (cost[n] as number[])[m] as number, matches }
}

/**
 * Adds one excerpt's naming to `naming`: each 10 ms frame where one reference speaker alone talks and a segment lies,
 * against the segment's label; labels are mapped to reference speakers one to one, the pair sharing most time first.
 */
function scoreNaming(
  truth: ReadonlyArray<{ start: number; end: number; speaker: string }>,
  segments: ReadonlyArray<{ speaker: string | null; start: number; end: number }>,
) {
  const pairs = new Map<string, number>()
  let frames = 0
  let unnamed = 0
  for (const seg of segments) {
    for (let ms = Math.ceil(seg.start / 10) * 10; ms < seg.end; ms += 10) {
      const t = (ms + 5) / 1000
      const talking = truth.filter((r) => r.start <= t && t < r.end)
      if (talking.length !== 1) continue
      frames++
      if (seg.speaker === null) unnamed++
      else {
        const key = `${seg.speaker}\u0000${(talking[0] as { speaker: string }).speaker}`
        pairs.set(key, (pairs.get(key) ?? 0) + 1)
      }
    }
  }
  const [labels, people] = [new Set<string>(), new Set<string>()]
  let right = 0
  for (const [key, n] of [...pairs].sort((a, b) => b[1] - a[1])) {
    const [label, person] = key.split('\u0000') as [string, string]
    if (labels.has(label) || people.has(person)) continue
    labels.add(label)
    people.add(person)
    right += n
  }
  naming.frames += frames
  naming.right += right
  naming.unnamed += unnamed
}
