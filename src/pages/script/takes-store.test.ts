import { describe, expect, it, vi } from 'vitest'
import { createTakesStore, joinTakes, type TakesState } from './takes-store.ts'

const REQUEST = { model: 'svc-tts-2-latest', voice: 'alloy' } as const
/** `ms` of 24 kHz audio whose samples count up from `from`. */
const audio = (ms: number, from = 1) => Int16Array.from({ length: ms * 24 }, (_, i) => (from + i) % 30_000)

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

  it('drops the oldest unstarred takes beyond the cap, never one still recording, and counts them per line', () => {
    const store = createTakesStore(1000)
    const s = store.getState()
    const kept = made(s, 'ln_one111', 400)
    s.star(kept)
    const oldest = made(s, 'ln_one111', 300)
    const older = made(s, 'ln_two222', 200)
    const live = s.begin('ln_two222', 'x', REQUEST)
    s.append(live, audio(100))
    expect(store.getState().takes).toHaveLength(4)
    s.append(live, audio(200))
    const ids = () => store.getState().takes.map((t) => t.id)
    expect(ids()).toEqual([kept, older, live])
    expect(store.getState().dropped).toEqual({ ln_one111: 1 })
    // Over the cap with only a starred and a recording take left: both stay.
    s.append(live, audio(500))
    expect(ids()).toEqual([kept, live])
    expect(store.getState().dropped).toEqual({ ln_one111: 1, ln_two222: 1 })
    expect(ids()).not.toContain(oldest)
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
