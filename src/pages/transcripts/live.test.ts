import { describe, expect, it } from 'vitest'
import {
  drained,
  INITIAL_LIVE,
  isStopNoise,
  type LiveItem,
  type LiveState,
  liveReducer,
  visibleItems,
} from './live.ts'

const fold = (events: Array<{ type: string } & Record<string, unknown>>, from: LiveState = INITIAL_LIVE) =>
  events.reduce(liveReducer, from)

describe('liveReducer', () => {
  it('reads the diarization status of the session, clamping included', () => {
    const state = fold([
      {
        type: 'session.created',
        session: { diarization: { enabled: true, max_speakers: 20, max_speakers_requested: 40 } },
      },
      {
        type: 'session.updated',
        session: { diarization: { enabled: true, status: 'active', max_speakers: 20 } },
      },
    ])
    expect(state.diarization).toEqual({
      enabled: true,
      status: 'active',
      maxSpeakers: 20,
      maxSpeakersRequested: null,
    })
    expect(fold([{ type: 'session.updated', session: {} }]).diarization).toBeNull()
    expect(
      fold([{ type: 'session.updated', session: { diarization: { enabled: true, status: 'degraded' } } }])
        .diarization?.status,
    ).toBe('degraded')
  })

  it('shows words as they come, then the final transcript, then the speaker', () => {
    const events = [
      { type: 'input_audio_buffer.speech_started', item_id: 'item_1' },
      { type: 'input_audio_buffer.committed', item_id: 'item_1' },
      { type: 'conversation.item.input_audio_transcription.delta', item_id: 'item_1', delta: 'hello ' },
      { type: 'conversation.item.input_audio_transcription.delta', item_id: 'item_1', delta: 'world' },
    ]
    const partial = fold(events)
    expect(partial.speaking).toBe(true)
    expect(partial.items).toEqual([{ id: 'item_1', text: 'hello world', completed: false }])

    const done = fold(
      [
        { type: 'input_audio_buffer.speech_stopped', item_id: 'item_1' },
        {
          type: 'conversation.item.input_audio_transcription.completed',
          item_id: 'item_1',
          transcript: 'hello world.',
          audio_start_ms: 100,
          audio_end_ms: 1500,
        },
        // A late delta after completion changes nothing.
        { type: 'conversation.item.input_audio_transcription.delta', item_id: 'item_1', delta: 'x' },
        {
          type: 'conversation.item.input_audio_transcription.speakers',
          item_id: 'item_1',
          speaker: 'speaker_1',
          text: '[Joyful] hello world.',
          attribution: 'commit',
          segments: [{ speaker: 'speaker_1', segment_start_ms: 120, segment_end_ms: 1400 }],
        },
      ],
      partial,
    )
    expect(done.speaking).toBe(false)
    expect(done.items).toEqual([
      {
        id: 'item_1',
        text: 'hello world.',
        completed: true,
        startMs: 100,
        endMs: 1500,
        speaker: 'speaker_1',
        attribution: 'commit',
        speakerText: '[Joyful] hello world.',
      },
    ])
  })

  it('keeps items in arrival order and takes times from speaker segments when completion had none', () => {
    const state = fold([
      { type: 'conversation.item.input_audio_transcription.delta', item_id: 'b', delta: 'second' },
      { type: 'conversation.item.input_audio_transcription.completed', item_id: 'a', transcript: 'first' },
      {
        type: 'conversation.item.input_audio_transcription.speakers',
        item_id: 'a',
        speaker: null,
        text: 'first',
        attribution: 'unattributed',
        segments: [
          { speaker: null, segment_start_ms: 900, segment_end_ms: 1000 },
          { speaker: null, segment_start_ms: 200, segment_end_ms: 500 },
        ],
      },
    ])
    expect(state.items.map((i) => i.id)).toEqual(['b', 'a'])
    expect(state.items[1]).toMatchObject({
      speaker: null,
      attribution: 'unattributed',
      startMs: 200,
      endMs: 1000,
    })
  })

  it('records error messages and ignores events it does not know', () => {
    const state = fold([
      { type: 'error', error: { type: 'invalid_request_error', code: 'x', message: 'Bad audio.' } },
      { type: 'something.new', whatever: 1 },
    ])
    expect(state.error).toBe('Bad audio.')
    expect(state.items).toEqual([])
  })
})

describe('Stop after silence', () => {
  const item = (over: Partial<LiveItem>): LiveItem => ({ id: 'i', text: '', completed: false, ...over })

  it('shows no row for a turn without words, and none for an unfinished empty one once the session ended', () => {
    const items = [
      item({ id: 'a', text: 'hello', completed: true }),
      item({ id: 'b', completed: true }),
      item({ id: 'c' }),
      item({ id: 'd', text: 'partial' }),
      item({ id: 'e', completed: true, speakerText: '[laughs]' }),
    ]
    expect(visibleItems(items, false).map((i) => i.id)).toEqual(['a', 'c', 'd', 'e'])
    expect(visibleItems(items, true).map((i) => i.id)).toEqual(['a', 'd', 'e'])
  })

  it('treats the refused commit of a Stop after silence as no error', () => {
    expect(
      isStopNoise({
        type: 'error',
        error: {
          code: 'input_audio_buffer_commit_empty',
          message: 'There is no speech in the buffer to commit.',
        },
      }),
    ).toBe(true)
    expect(isStopNoise({ type: 'error', error: { code: 'rate_limit_exceeded' } })).toBe(false)
  })

  it('waits for the committed item, its transcript and, with diarization, its speaker', () => {
    const base: LiveState = {
      ...INITIAL_LIVE,
      items: [item({ id: 'a', text: 'x', completed: true, speaker: 's' })],
    }
    expect(drained(base, { committed: false, itemsBefore: 1 })).toBe(true)
    expect(drained(base, { committed: true, itemsBefore: 1 })).toBe(false)
    const more = { ...base, items: [...base.items, item({ id: 'b', text: 'y' })] }
    expect(drained(more, { committed: true, itemsBefore: 1 })).toBe(false)
    const done = { ...more, items: [...base.items, item({ id: 'b', text: 'y', completed: true })] }
    expect(drained(done, { committed: true, itemsBefore: 1 })).toBe(true)
    const diarized = {
      ...done,
      diarization: { enabled: true, status: 'active' as const, maxSpeakers: 4, maxSpeakersRequested: null },
    }
    expect(drained(diarized, { committed: true, itemsBefore: 1 })).toBe(false)
  })
})
