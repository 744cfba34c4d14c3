import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openTestStorage } from '../../testing/studio.ts'
import { TranscriptStore } from '../transcripts/store.ts'
import { emptyFold, foldServerEvent, liveRecorder, liveResult } from './recorder.ts'

const events = [
  { type: 'session.created', session: { audio: { input: { format: { rate: 24000 } } } } },
  { type: 'session.updated', session: { diarization: { enabled: true, status: 'active', max_speakers: 4 } } },
  {
    type: 'conversation.item.input_audio_transcription.completed',
    item_id: 'item_1',
    transcript: 'good morning',
    audio_start_ms: 500,
    audio_end_ms: 1700,
    segments: [{ text: 'good morning', segment_start_ms: 520, segment_end_ms: 1650 }],
  },
  {
    type: 'conversation.item.input_audio_transcription.speakers',
    item_id: 'item_1',
    speaker: 'speaker_0',
    text: '[Joyful] good morning',
    attribution: 'endpoint',
    segments: [{ speaker: 'speaker_0', segment_start_ms: 500, segment_end_ms: 1700 }],
  },
  {
    type: 'conversation.item.input_audio_transcription.completed',
    item_id: 'item_2',
    transcript: 'hello',
    audio_start_ms: 2000,
    audio_end_ms: 2600,
    segments: [],
  },
  {
    type: 'conversation.item.input_audio_transcription.speakers',
    item_id: 'item_2',
    speaker: null,
    text: 'hello',
    attribution: 'unattributed',
    segments: [{ speaker: null, segment_start_ms: 2000, segment_end_ms: 2600 }],
  },
]

describe('a live session as a stored result', () => {
  it('has the shape of an upload result: segments, spans and one turn per finished item', () => {
    const fold = emptyFold()
    for (const e of events) foldServerEvent(fold, e)
    expect(liveResult(fold, 3)).toEqual({
      text: 'good morning hello',
      warnings: [],
      language: 'en',
      duration: 3,
      segments: [
        { id: 0, text: 'good morning', start: 0.52, end: 1.65 },
        { id: 1, text: 'hello', start: 2, end: 2.6 },
      ],
      diarization: {
        status: 'completed',
        speakers: ['speaker_0'],
        segments: [{ id: 0, start: 0.5, end: 1.7, speaker: 'speaker_0' }],
        turns: [
          { speaker: 'speaker_0', start: 0.5, end: 1.7, text: '[Joyful] good morning' },
          { speaker: null, start: 2, end: 2.6, text: 'hello' },
        ],
      },
    })
  })

  it('says diarization failed when the session had it unavailable, and has no diarization when not asked', () => {
    const unavailable = emptyFold()
    for (const e of events) foldServerEvent(unavailable, e)
    foldServerEvent(unavailable, {
      type: 'session.updated',
      session: { diarization: { enabled: true, status: 'unavailable' } },
    })
    expect(liveResult(unavailable, 3)?.diarization).toEqual({ status: 'failed', speakers: [], segments: [] })
    expect(liveResult(unavailable, 3)?.warnings.map((w) => w.code)).toEqual(['diarization_failed'])
    const plain = emptyFold()
    foldServerEvent(plain, events[2] as Record<string, unknown>)
    expect(liveResult(plain, 2)?.diarization).toBeUndefined()
  })

  it('is nothing without a finished turn', () => {
    expect(liveResult(emptyFold(), 10)).toBeNull()
  })
})

describe('liveRecorder', () => {
  let dir: string
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('writes the appended audio as a WAV and saves the session', async () => {
    dir = mkdtempSync(join(tmpdir(), 'live-recorder-'))
    const db = await openTestStorage(dir)
    const store = new TranscriptStore(db, dir)
    const rec = liveRecorder(store, 'ria', () => new Date('2026-01-02T03:04:05Z'))
    rec.server(JSON.stringify(events[0]))
    const pcm = Buffer.alloc(4801, 7) // an odd byte waits for the next append
    rec.client(JSON.stringify({ type: 'input_audio_buffer.append', audio: pcm.toString('base64') }))
    rec.client(
      JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(3, 7).toString('base64') }),
    )
    for (const e of events.slice(1)) rec.server(JSON.stringify(e))
    const id = await rec.close()
    expect(id).toMatch(/^tr_/)
    expect(await rec.close()).toBeNull()
    const saved = await store.get(id as string)
    expect(saved).toMatchObject({
      name: 'Live session 2026-01-02 03:04 UTC',
      source: 'live',
      created_by: 'ria',
      audio_bytes: 44 + 4804,
    })
    const wav = await store.readAudio(saved?.audioFile as string)
    expect(wav.length).toBe(44 + 4804)
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF')
    expect(wav.readUInt32LE(24)).toBe(24_000)
    expect(wav.readUInt32LE(40)).toBe(4804)
    expect(readdirSync(store.spoolDir)).toEqual([]) // the spooled recording went into the database
    await db.close()
  })

  it('leaves nothing behind for a session without a finished turn', async () => {
    dir = mkdtempSync(join(tmpdir(), 'live-recorder-'))
    const db = await openTestStorage(dir)
    const store = new TranscriptStore(db, dir)
    const rec = liveRecorder(store, 'ria')
    rec.client(
      JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(480).toString('base64') }),
    )
    expect(await rec.close()).toBeNull()
    expect(readdirSync(store.spoolDir)).toEqual([])
    expect(await store.list()).toEqual([])
    await db.close()
  })
})
