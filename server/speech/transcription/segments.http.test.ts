import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkCues } from '../../../core/subtitle-cues.ts'
import { transcriptionVerboseJsonSchema } from '../../../schema/index.ts'
import { decodeAudio } from '../../engine/codecs/decode.ts'
import { meetingFile } from '../../testing/meetings.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { expectCueLimits, readSrt, readVtt } from '../../testing/subtitles.ts'
import { floatToPcm16Wav } from '../../wav.ts'
import { buildDiarization } from './diarization.ts'
import { SEGMENT_CAP_SECONDS } from './pipeline.ts'

/**
 * Readable segments and subtitles through the real API and engines (docs/transcription.md): a 45 s cut of two real
 * meeting excerpts (trn01 whole, then the first 15 s of trn03) uploaded as a PCM16 WAV.
 */
let svc: RunningService
let recording: Buffer

beforeAll(async () => {
  svc = await startSpeechService()
  const [a, b] = await Promise.all(
    ['trn01.wav', 'trn03.wav'].map(
      async (name) => (await decodeAudio(readFileSync(meetingFile(name)), { targetRate: 16_000 })).samples,
    ),
  )
  const joined = new Float32Array((a as Float32Array).length + 15 * 16_000)
  joined.set(a as Float32Array)
  joined.set((b as Float32Array).subarray(0, 15 * 16_000), (a as Float32Array).length)
  recording = floatToPcm16Wav(joined, 16_000)
}, 60_000)
afterAll(async () => {
  await svc?.close()
})

function upload(fields: Record<string, string>) {
  const form = new FormData()
  form.append('file', new Blob([new Uint8Array(recording)]), 'meeting.wav')
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  return fetch(`${svc.baseUrl}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.apiKey}` },
    body: form,
  })
}

describe('recognition segments of readable size, on a real meeting recording', () => {
  let words: string[] = []

  it('keeps every segment within the cap, each word inside its segment, times increasing, turns by the contract', async () => {
    const res = await upload({ response_format: 'verbose_json', diarization: 'true', num_speakers: '2' })
    expect(res.status).toBe(200)
    const body = transcriptionVerboseJsonSchema.parse(await res.json())
    expect(body.words.length).toBeGreaterThan(40)
    expect(body.segments.length).toBeGreaterThan(4)
    // Each word carries the decoder's posterior, and it tells words apart (a constant would mark none or all).
    const confidences = body.words.map((x) => x.confidence)
    for (const c of confidences) expect(c).toBeGreaterThanOrEqual(0)
    expect(new Set(confidences).size).toBeGreaterThan(10)
    let w = 0
    let previousEnd = 0
    for (const seg of body.segments) {
      expect(seg.end - seg.start).toBeLessThanOrEqual(SEGMENT_CAP_SECONDS)
      expect(seg.start).toBeGreaterThanOrEqual(previousEnd)
      previousEnd = seg.end
      // A segment's words are the next words in order, inside it, and make its text.
      const own: string[] = []
      while (w < body.words.length && own.join(' ').length < seg.text.length) {
        const word = body.words[w] as (typeof body.words)[number]
        expect(word.start).toBeGreaterThanOrEqual(seg.start)
        expect(word.end).toBeLessThanOrEqual(seg.end)
        own.push(word.word)
        w++
      }
      expect(own.join(' ')).toBe(seg.text)
    }
    expect(w).toBe(body.words.length)
    for (let i = 1; i < body.words.length; i++) {
      const [a, b] = [body.words[i - 1], body.words[i]] as [
        (typeof body.words)[number],
        (typeof body.words)[number],
      ]
      expect(b.start).toBeGreaterThanOrEqual(a.end)
      expect(b.end).toBeGreaterThanOrEqual(b.start)
    }
    expect(body.segments.map((s) => s.text).join(' ')).toBe(body.text)

    // Turns are exactly what the contract's rules make of these segments and the diarizer's spans.
    const diarization = body.diarization
    expect(diarization?.status).toBe('completed')
    const spans = (diarization?.segments ?? []).map((s) => ({
      start: s.start,
      end: s.end,
      speaker: Number(s.speaker.replace('speaker_', '')),
    }))
    expect(diarization?.turns).toEqual(buildDiarization(body.segments, spans).diarization.turns)
    words = body.words.map((x) => x.word)
  }, 240_000)

  it('writes srt and vtt cues of at most 7 s and two lines of 42 characters holding every word in order', async () => {
    const [srt, vtt] = await Promise.all([
      upload({ response_format: 'srt' }),
      upload({ response_format: 'vtt' }),
    ])
    expect(srt.status).toBe(200)
    expect(vtt.status).toBe(200)
    const srtCues = readSrt(await srt.text())
    const vttCues = readVtt(await vtt.text())
    expect(srtCues.length).toBeGreaterThan(4)
    const fromSrt = expectCueLimits(srtCues)
    expect(expectCueLimits(vttCues)).toEqual(fromSrt)
    // The timing rules too: 80 ms between cues; shorter than 1 s or faster than 17 characters a second only where the
    // next cue left no room (core/subtitle-cues.ts, checkCues).
    const problems = checkCues(srtCues)
    expect(problems.flat().filter((p) => p.rule !== 'short' && p.rule !== 'speed')).toEqual([])
    problems.forEach((ps, i) => {
      const cue = srtCues[i] as (typeof srtCues)[number]
      const next = srtCues[i + 1]
      const heldAsLongAsAllowed =
        cue.end - cue.start >= 6.999 || (next !== undefined && next.start - cue.end < 0.082)
      if (ps.length > 0) expect(heldAsLongAsAllowed, JSON.stringify({ cue, next, ps })).toBe(true)
    })
    // The same recording recognized again gives the same words (the recognizer is deterministic).
    if (words.length > 0) expect(fromSrt).toEqual(words)
  }, 240_000)
})
