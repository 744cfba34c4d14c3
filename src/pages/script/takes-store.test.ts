import { describe, expect, it, vi } from 'vitest'
import { newTakeSchema, type StoredTake } from '../../../schema/index.ts'
import { newTakeOf } from './take-history.ts'
import { createTakesStore, joinTakes, type Take, type TakesState } from './takes-store.ts'

const REQUEST = { model: 'svc-tts-2-latest', voice: 'alloy' } as const
/** `ms` of 24 kHz audio whose samples count up from `from`. */
const audio = (ms: number, from = 1) => Int16Array.from({ length: ms * 24 }, (_, i) => (from + i) % 30_000)

/** A take as the backend lists it. */
const stored = (id: string, extra: Partial<StoredTake> = {}): StoredTake => ({
  id,
  script_id: `scr_${'0'.repeat(32)}`,
  line_id: 'ln_one111',
  text: 'Stored.',
  settings: REQUEST,
  reference: false,
  status: 'complete',
  final: false,
  starred: false,
  name: null,
  time_to_first_audio_ms: null,
  samples: 2400,
  created_at: 0,
  ...extra,
})

/** A finished take of `ms` of audio. */
function made(s: TakesState, lineId: string, ms: number, status: 'complete' | 'incomplete' = 'complete') {
  const id = s.begin(lineId, `text of ${lineId}`, REQUEST)
  s.append(id, audio(ms))
  s.finish(id, status)
  return id
}

describe('takes store', () => {
  it('records a take piece by piece and finishes it', () => {
    const store = createTakesStore()
    const { begin, append, finish } = store.getState()
    const id = begin('ln_one111', 'Hello there.', { ...REQUEST, stream: true })
    expect(store.getState().takes[0]).toMatchObject({ id, status: 'recording', durationMs: 0, final: false })
    const first = audio(100, 1)
    const second = audio(1500, 5000)
    append(id, first)
    const afterFirst = store.getState().takes[0]?.pcm
    append(id, second)
    finish(id, 'complete', 180)
    const take = store.getState().takes[0]
    expect(take).toMatchObject({ status: 'complete', durationMs: 1600, timeToFirstAudioMs: 180 })
    expect(Array.from(take?.pcm ?? [])).toEqual([...first, ...second])
    // What was handed out before the second piece did not change under its holder.
    expect(Array.from(afterFirst ?? [])).toEqual(Array.from(first))
    append(id, audio(100))
    expect(store.getState().takes[0]?.durationMs).toBe(1600)
  })

  it('keeps an incomplete take incomplete and marks final renders', () => {
    const store = createTakesStore()
    const s = store.getState()
    const id = s.begin('ln_one111', 'x', { ...REQUEST, stream: false })
    s.append(id, audio(50))
    s.finish(id, 'incomplete')
    s.finish(id, 'complete')
    expect(store.getState().takes[0]).toMatchObject({ status: 'incomplete', final: true })
  })

  it('stars one take per line and only complete ones', () => {
    const store = createTakesStore()
    const s = store.getState()
    const a = made(s, 'ln_one111', 100)
    const b = made(s, 'ln_one111', 100)
    const other = made(s, 'ln_two222', 100)
    const broken = made(s, 'ln_one111', 100, 'incomplete')
    s.star(a)
    s.star(other)
    s.star(b)
    const starred = () =>
      store
        .getState()
        .takes.filter((t) => t.starred)
        .map((t) => t.id)
    expect(starred()).toEqual([b, other])
    s.star(broken)
    expect(starred()).toEqual([b, other])
    s.star(b, false)
    expect(starred()).toEqual([other])
  })

  it('lists a line newest first and the chosen takes in line order', () => {
    vi.useFakeTimers()
    try {
      const store = createTakesStore()
      const s = store.getState()
      const first = made(s, 'ln_one111', 10)
      vi.advanceTimersByTime(1000)
      const second = made(s, 'ln_one111', 10)
      const two = made(s, 'ln_two222', 10)
      made(s, 'ln_three33', 10)
      expect(s.takesFor('ln_one111').map((t) => t.id)).toEqual([second, first])
      s.star(first)
      s.star(two)
      const chosen = s.chosenTakes(['ln_two222', 'ln_three33', 'ln_one111'])
      expect(chosen.map((t) => t.id)).toEqual([two, first])
    } finally {
      vi.useRealTimers()
    }
  })

  it('removes a take', () => {
    const store = createTakesStore()
    const s = store.getState()
    const a = made(s, 'ln_one111', 10)
    const b = made(s, 'ln_one111', 10)
    s.remove(a)
    expect(s.takesFor('ln_one111').map((t) => t.id)).toEqual([b])
  })

  it('merges a script’s stored takes: adds new ones without audio, updates known ones, keeps this tab’s own', () => {
    const store = createTakesStore()
    const s = store.getState()
    const mine = made(s, 'ln_one111', 100)
    s.stored(mine, { storedId: 'tk_mine' })
    const unsaved = made(s, 'ln_one111', 100)
    s.stored(unsaved, { error: 'The studio cannot reach its database.' })
    s.loadStored([
      stored('tk_mine', { starred: true, name: 'Warm', created_at: 1 }),
      stored('tk_other', { samples: 48_000, created_at: 2 }),
    ])
    const byId = (id: string) => store.getState().takes.find((t) => t.id === id)
    expect(byId(mine)).toMatchObject({ starred: true, name: 'Warm', origin: 'page', audioReady: true })
    expect(byId(unsaved)).toMatchObject({
      storedId: null,
      saveError: 'The studio cannot reach its database.',
    })
    expect(byId('tk_other')).toMatchObject({
      storedId: 'tk_other',
      origin: 'backend',
      audioReady: false,
      durationMs: 2000,
      pcm: new Int16Array(0),
      request: { model: 'svc-tts-2-latest', voice: 'alloy' },
    })
    s.setAudio('tk_other', audio(10))
    expect(byId('tk_other')).toMatchObject({ audioReady: true, durationMs: 10 })
    // Deleted in another browser: a loaded take goes; one made in this tab stays until this tab deletes it.
    s.loadStored([])
    expect(store.getState().takes.map((t) => t.id)).toEqual([mine, unsaved])
  })

  it('holds an erased take as a record: no audio to fetch, never chosen; a take of this tab erased meanwhile drops its audio', () => {
    const store = createTakesStore()
    const s = store.getState()
    const mine = made(s, 'ln_one111', 100)
    s.stored(mine, { storedId: 'tk_mine' })
    s.star(mine)
    const erased = { at: Date.UTC(2026, 11, 2), reason: 'consent_revoked' as const }
    s.loadStored([
      stored('tk_mine', { starred: true, erased, created_at: 1 }),
      stored('tk_gone', { erased: { at: erased.at, reason: 'voice_gone' }, created_at: 2 }),
      stored('tk_kept', { erased: null, created_at: 3 }),
    ])
    const byId = (id: string) => store.getState().takes.find((t) => t.id === id)
    expect(byId(mine)).toMatchObject({ erased, starred: false, audioReady: true, pcm: new Int16Array(0) })
    expect(byId('tk_gone')).toMatchObject({ erased: { reason: 'voice_gone' }, audioReady: true })
    expect(byId('tk_kept')).toMatchObject({ erased: null, audioReady: false })
    s.star(mine)
    expect(s.chosenTakes(['ln_one111'])).toEqual([])
    // Erased between the list and the audio's fetch (the backend answered 410).
    s.setAudio('tk_kept', audio(10))
    s.star('tk_kept')
    s.markErased('tk_kept', { at: 5, reason: 'voice_gone' })
    expect(byId('tk_kept')).toMatchObject({ erased: { at: 5 }, starred: false, pcm: new Int16Array(0) })
    expect(store.getState().chosenTakes(['ln_one111'])).toEqual([])
  })

  it('keeps one copy when a list brought a take in just before its own save finished', () => {
    const store = createTakesStore()
    const s = store.getState()
    const mine = made(s, 'ln_one111', 10)
    s.loadStored([stored('tk_mine')])
    expect(store.getState().takes).toHaveLength(2)
    s.stored(mine, { storedId: 'tk_mine' })
    expect(store.getState().takes.map((t) => [t.id, t.storedId])).toEqual([[mine, 'tk_mine']])
  })

  it('removes the takes the backend dropped and counts them per line', () => {
    const store = createTakesStore()
    const s = store.getState()
    const a = made(s, 'ln_one111', 10)
    const b = made(s, 'ln_two222', 10)
    const c = made(s, 'ln_two222', 10)
    s.stored(a, { storedId: 'tk_a' })
    s.stored(b, { storedId: 'tk_b' })
    s.stored(c, { storedId: 'tk_c' })
    s.applyDropped([
      { id: 'tk_a', line_id: 'ln_one111' },
      { id: 'tk_b', line_id: 'ln_two222' },
      { id: 'tk_elsewhere', line_id: 'ln_three33' },
    ])
    expect(store.getState().takes.map((t) => t.id)).toEqual([c])
    expect(store.getState().dropped).toEqual({ ln_one111: 1, ln_two222: 1, ln_three33: 1 })
  })

  it('keeps a reference-clip take’s voice out of what it sends, and the Playback panel’s figure', () => {
    const store = createTakesStore()
    const s = store.getState()
    const id = s.begin('ln_one111', 'Hi.', { model: 'svc-tts-2-latest', speed: 1.2 })
    s.append(id, audio(10))
    s.finish(id, 'incomplete')
    s.setTimeToFirstAudio(id, 512)
    const take = store.getState().takes[0] as Take
    expect(newTakeOf(take)).toStrictEqual({
      line_id: 'ln_one111',
      text: 'Hi.',
      settings: { model: 'svc-tts-2-latest', speed: 1.2 },
      reference: true,
      status: 'incomplete',
      final: false,
      time_to_first_audio_ms: 512,
    })
    expect(newTakeSchema.parse(newTakeOf(take))).toBeTruthy()
    const saved = {
      ...take,
      request: { model: 'svc-tts-2-latest', voice: { id: `voice_${'a'.repeat(32)}` } },
    }
    expect(newTakeOf(saved as Take)).toMatchObject({ reference: false, settings: saved.request })
  })
})

describe('joinTakes', () => {
  it('puts the takes end to end with silence between them', () => {
    const a = new Int16Array([1, 2, 3])
    const b = new Int16Array([4, 5])
    const joined = joinTakes([{ pcm: a }, { pcm: b }], 0.125) // three samples of silence at 24 kHz
    expect(Array.from(joined)).toEqual([1, 2, 3, 0, 0, 0, 4, 5])
    expect(joinTakes([{ pcm: a }]).length).toBe(3)
    expect(joinTakes([{ pcm: a }, { pcm: b }]).length).toBe(5 + 300 * 24)
  })
})
