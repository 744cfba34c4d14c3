import { randomBytes } from 'node:crypto'
import { closeSync, createReadStream, openSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { StoredResult } from '../../../schema/index.ts'
import { pcm16WavHeader } from '../../wav.ts'
import { newTranscriptId, type TranscriptStore } from '../transcripts/store.ts'

/**
 * Keeps a live transcription session as a saved transcript: the microphone audio the browser appended (PCM16 at the
 * session's rate, spooled to a WAV on this instance's disk as it comes and kept in the database at the end) and the service's
 * finished turns with their speakers, assembled into the same shape as an upload's result (contract 4.12): `segments`
 * from the completed turns, `diarization.segments` from the speakers events, one turn per finished item. A session
 * without a finished turn leaves nothing behind.
 */

interface Item {
  id: string
  transcript?: string
  startMs?: number
  endMs?: number
  segments?: Array<{ text: string; start: number; end: number }>
  speaker?: string | null
  speakerText?: string
  spans?: Array<{ speaker: string | null; start: number; end: number }>
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
const seconds = (ms: number) => Math.round(ms) / 1000

export interface LiveFold {
  rate: number
  diarization: { enabled: boolean; status?: string } | null
  items: Item[]
}

export function emptyFold(): LiveFold {
  return { rate: 24_000, diarization: null, items: [] }
}

function item(fold: LiveFold, id: string): Item {
  let found = fold.items.find((i) => i.id === id)
  if (!found) {
    found = { id }
    fold.items.push(found)
  }
  return found
}

/** Folds one event the service sent into the session record. */
export function foldServerEvent(fold: LiveFold, event: Record<string, unknown>): void {
  const id = typeof event.item_id === 'string' ? event.item_id : null
  switch (event.type) {
    case 'session.created':
    case 'session.updated': {
      const session = event.session as
        | {
            diarization?: { enabled?: unknown; status?: unknown }
            audio?: { input?: { format?: { rate?: unknown } } }
          }
        | undefined
      const rate = num(session?.audio?.input?.format?.rate)
      if (rate) fold.rate = rate
      const d = session?.diarization
      if (d)
        fold.diarization = {
          enabled: d.enabled === true,
          status: typeof d.status === 'string' ? d.status : undefined,
        }
      return
    }
    case 'conversation.item.input_audio_transcription.completed': {
      if (!id) return
      const it = item(fold, id)
      it.transcript = typeof event.transcript === 'string' ? event.transcript : ''
      it.startMs = num(event.audio_start_ms)
      it.endMs = num(event.audio_end_ms)
      if (Array.isArray(event.segments)) {
        it.segments = (event.segments as Array<Record<string, unknown>>).flatMap((s) => {
          const start = num(s.segment_start_ms)
          const end = num(s.segment_end_ms)
          return start === undefined || end === undefined || typeof s.text !== 'string'
            ? []
            : [{ text: s.text, start: seconds(start), end: seconds(end) }]
        })
      }
      return
    }
    case 'conversation.item.input_audio_transcription.speakers': {
      if (!id) return
      const it = item(fold, id)
      it.speaker = typeof event.speaker === 'string' ? event.speaker : null
      if (typeof event.text === 'string') it.speakerText = event.text
      if (Array.isArray(event.segments)) {
        it.spans = (event.segments as Array<Record<string, unknown>>).flatMap((s) => {
          const start = num(s.segment_start_ms)
          const end = num(s.segment_end_ms)
          return start === undefined || end === undefined
            ? []
            : [
                {
                  speaker: typeof s.speaker === 'string' ? s.speaker : null,
                  start: seconds(start),
                  end: seconds(end),
                },
              ]
        })
      }
      return
    }
  }
}

/** The session as a stored result, or null when no turn was finished. */
export function liveResult(fold: LiveFold, audioSeconds: number): StoredResult | null {
  const done = fold.items.filter((i) => i.transcript !== undefined && i.transcript.trim() !== '')
  if (done.length === 0) return null
  const segments = done.flatMap((i) =>
    i.segments && i.segments.length > 0
      ? i.segments
      : [
          {
            text: i.transcript as string,
            start: seconds(i.startMs ?? 0),
            end: seconds(i.endMs ?? i.startMs ?? 0),
          },
        ],
  )
  const result: StoredResult = {
    text: done.map((i) => (i.transcript as string).trim()).join(' '),
    warnings: [],
    language: 'en',
    duration: Math.round(audioSeconds * 1000) / 1000,
    segments: segments.map((s, id) => ({ id, ...s })),
  }
  if (fold.diarization?.enabled) {
    const speakers: string[] = []
    const spans = done.flatMap((i) => i.spans ?? []).filter((s) => s.speaker !== null && s.end > s.start)
    for (const i of done) if (i.speaker && !speakers.includes(i.speaker)) speakers.push(i.speaker)
    for (const s of spans) if (!speakers.includes(s.speaker as string)) speakers.push(s.speaker as string)
    const failed = fold.diarization.status === 'unavailable'
    result.diarization = {
      status: failed ? 'failed' : 'completed',
      speakers: failed ? [] : speakers,
      segments: failed
        ? []
        : spans.map((s, id) => ({ id, start: s.start, end: s.end, speaker: s.speaker as string })),
      ...(failed
        ? {}
        : {
            turns: done.map((i) => ({
              speaker: i.speaker ?? null,
              start: seconds(i.startMs ?? 0),
              end: seconds(i.endMs ?? i.startMs ?? 0),
              text: (i.speakerText ?? i.transcript ?? '').trim(),
            })),
          }),
    }
    if (failed)
      result.warnings.push({
        code: 'diarization_failed',
        message: 'Speaker labels were unavailable for this session.',
      })
  }
  return result
}

/** Records one session; `client` and `server` see every text frame, `close` saves (or discards) it. */
export function liveRecorder(store: TranscriptStore, who: string, now = () => new Date()) {
  const id = newTranscriptId()
  const fileName = `${id}.wav`
  // Spooled to this instance's disk while the session lasts (appends are small and many), kept in the database at the end.
  const temporary = join(store.spoolDir, `.${fileName}.${randomBytes(6).toString('hex')}.part`)
  const fold = emptyFold()
  let fd: number | null = null
  let dataBytes = 0
  let odd: Buffer | null = null
  let closed = false
  const startedAt = now()

  const append = (pcm: Buffer) => {
    let bytes = odd ? Buffer.concat([odd, pcm]) : pcm
    odd = null
    if (bytes.length % 2 === 1) {
      odd = bytes.subarray(bytes.length - 1)
      bytes = bytes.subarray(0, bytes.length - 1)
    }
    if (bytes.length === 0) return
    if (fd === null) {
      fd = openSync(temporary, 'wx', 0o600)
      writeSync(fd, pcm16WavHeader(fold.rate, 0))
    }
    writeSync(fd, bytes)
    dataBytes += bytes.length
  }

  return {
    client(text: string) {
      if (closed || !text.includes('input_audio_buffer.append')) return
      const event = JSON.parse(text) as { type?: unknown; audio?: unknown }
      if (event.type === 'input_audio_buffer.append' && typeof event.audio === 'string')
        append(Buffer.from(event.audio, 'base64'))
    },
    server(text: string) {
      if (closed) return
      foldServerEvent(fold, JSON.parse(text) as Record<string, unknown>)
    },
    /** Saves the session when it has audio and a finished turn; the saved id, or null. */
    async close(): Promise<string | null> {
      if (closed) return null
      closed = true
      if (fd === null) return null
      const handle = fd
      fd = null
      const result = liveResult(fold, dataBytes / 2 / fold.rate)
      if (!result) {
        closeSync(handle)
        rmSync(temporary, { force: true })
        return null
      }
      writeSync(handle, pcm16WavHeader(fold.rate, dataBytes), 0, 44, 0)
      closeSync(handle)
      try {
        await store.writeAudio(createReadStream(temporary), fileName, Number.POSITIVE_INFINITY)
      } finally {
        rmSync(temporary, { force: true })
      }
      try {
        await store.insert({
          id,
          name: `Live session ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
          source: 'live',
          createdBy: who,
          audioFile: fileName,
          audioType: 'audio/wav',
          audioBytes: 44 + dataBytes,
          result,
        })
      } catch (err) {
        // No row, no recording: audio without a transcript would be found by nobody.
        await store.removeAudio(fileName)
        throw err
      }
      return id
    },
  }
}
