import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { transcriptionVerboseJsonSchema } from '../../../schema/index.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { joinClips, realSpeechAvailable, spokenDigits, talkOver, wav16k } from '../../testing/speakers.ts'

/**
 * Who spoke when, through the real API, recognizer and segmentation model, on real people (FSDD digits: George and
 * Jackson, shared/data/speakers) — contract 4.12, docs/transcription.md.
 */
let svc: RunningService
let alternating: Buffer
let mixed: Buffer
let overlap: { from: number; to: number }

beforeAll(async () => {
  svc = await startSpeechService()
  if (!realSpeechAvailable()) return
  const [g0, g1, j0, j1] = await Promise.all([
    spokenDigits('george', [0]),
    spokenDigits('george', [1]),
    spokenDigits('jackson', [0]),
    spokenDigits('jackson', [1]),
  ])
  alternating = wav16k(joinClips([g0, j0, g1, j1] as Float32Array[], 0.5))
  // George, and Jackson starting 3 s before he stops, both at full level.
  const talking = talkOver(g0 as Float32Array, j1 as Float32Array, 3)
  mixed = wav16k(talking.audio)
  overlap = talking.overlap
}, 60_000)
afterAll(async () => {
  await svc?.close()
})

async function diarize(file: Buffer, fields: Record<string, string> = {}) {
  const form = new FormData()
  form.append('file', new Blob([new Uint8Array(file)]), 'people.wav')
  form.append('response_format', 'verbose_json')
  form.append('diarization', 'true')
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  const res = await fetch(`${svc.baseUrl}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.apiKey}` },
    body: form,
  })
  expect(res.status).toBe(200)
  const body = transcriptionVerboseJsonSchema.parse(await res.json())
  expect(body.diarization?.status).toBe('completed')
  return body.diarization as NonNullable<typeof body.diarization>
}

describe.skipIf(!realSpeechAvailable())('upload diarization on real people', () => {
  it('finds two people taking turns, with turns that follow the alternation', async () => {
    const d = await diarize(alternating)
    expect(d.speakers).toEqual(['speaker_0', 'speaker_1'])
    const order = (d.turns ?? []).map((t) => t.speaker)
    expect(order).toEqual(['speaker_0', 'speaker_1', 'speaker_0', 'speaker_1'])
    // Turns never overlap: one speaker holds the floor at a time (docs/transcription.md).
    const turns = d.turns ?? []
    for (let i = 1; i < turns.length; i++)
      expect(turns[i]?.start as number).toBeGreaterThanOrEqual((turns[i - 1]?.end as number) - 1e-9)
  }, 120_000)

  it('carries both speakers in segments where two people talk at once', async () => {
    const d = await diarize(mixed)
    const during = d.segments.filter((s) => s.start < overlap.to - 0.5 && s.end > overlap.from + 0.5)
    expect(new Set(during.map((s) => s.speaker))).toEqual(new Set(['speaker_0', 'speaker_1']))
    const [a, b] = ['speaker_0', 'speaker_1'].map((speaker) => during.filter((s) => s.speaker === speaker))
    const overlapping = (a ?? []).some((x) => (b ?? []).some((y) => x.start < y.end && y.start < x.end))
    expect(overlapping).toBe(true)
  }, 120_000)

  it('gives three labels when asked for three speakers on a two-person recording', async () => {
    const d = await diarize(alternating, { num_speakers: '3' })
    expect(d.speakers).toEqual(['speaker_0', 'speaker_1', 'speaker_2'])
    expect(new Set(d.segments.map((s) => s.speaker)).size).toBe(3)
  }, 120_000)
})
