import { beforeEach, describe, expect, it } from 'vitest'
import { type FakeAudioContext, fakeContext } from './fake-audio-context.ts'
import { TakePlayer } from './take-player.ts'

const RATE = 24_000
/** A take of `seconds` whose every sample is `value`. */
const take = (id: string, seconds: number, value = 1000) => ({
  id,
  pcm: new Int16Array(Math.round(seconds * RATE)).fill(value),
})

let fake: FakeAudioContext
let player: TakePlayer
beforeEach(() => {
  const ctx = fakeContext()
  fake = ctx.fake
  player = new TakePlayer(ctx.make)
})

describe('TakePlayer', () => {
  it('plays a take from memory as float samples at 24 kHz', () => {
    player.play(take('t1', 2, -16384))
    const [source] = fake.playing
    expect(source?.buffer?.sampleRate).toBe(RATE)
    expect(source?.buffer?.length).toBe(2 * RATE)
    expect(source?.buffer?.getChannelData()[123]).toBe(-0.5)
    expect(player.state).toMatchObject({ takeId: 't1', playing: true, duration: 2 })
  })

  it('pauses and resumes at the same position', () => {
    const t = take('t1', 2)
    player.play(t)
    fake.advance(0.5)
    expect(player.position).toBeCloseTo(0.5)
    player.pause()
    fake.advance(1)
    expect(player.position).toBeCloseTo(0.5)
    expect(player.state.playing).toBe(false)
    player.play(t)
    expect(fake.playing.at(-1)?.offset).toBeCloseTo(0.5)
  })

  it('seeks while playing and while paused', () => {
    const t = take('t1', 3)
    player.play(t)
    player.seek(2)
    expect(fake.playing.at(-1)?.offset).toBe(2)
    fake.advance(0.25)
    expect(player.position).toBeCloseTo(2.25)
    player.pause()
    player.seek(10)
    expect(player.position).toBe(3)
  })

  it('reports the end of a take once, not a pause, and starts over on the next play', () => {
    const t = take('t1', 1)
    let ended = 0
    player.addEventListener('ended', () => ended++)
    player.play(t)
    fake.advance(0.4)
    player.pause()
    fake.advance(0.1)
    expect(ended).toBe(0)
    player.play(t)
    fake.advance(0.7)
    expect(ended).toBe(1)
    expect(player.state.playing).toBe(false)
    expect(player.position).toBe(1)
    player.play(t)
    expect(fake.playing.at(-1)?.offset).toBe(0)
  })

  it('switches A/B at the same position with short fades on both sides', () => {
    const a = take('a', 3)
    const b = take('b', 3)
    player.compare(a, b)
    expect(player.state.compare).toEqual({ a: 'a', b: 'b', side: 'a', gains: { a: 1, b: 1 } })
    player.play(a)
    fake.advance(1.2)
    const [sourceA] = fake.playing
    player.switchTo('b')
    const sourceB = fake.sources.at(-1)
    expect(sourceB?.buffer?.length).toBe(3 * RATE)
    expect(sourceB?.offset).toBeCloseTo(1.2)
    expect(sourceB?.startedAt).toBe(fake.currentTime)
    expect(sourceB?.gain?.rampTo).toEqual({ value: 1, at: fake.currentTime + 0.005 })
    expect(sourceA?.stopAt).toBeCloseTo(fake.currentTime + 0.005)
    expect(sourceA?.gain?.rampTo).toEqual({ value: 0, at: sourceA?.stopAt })
    expect(player.state).toMatchObject({ takeId: 'b', playing: true, compare: { side: 'b' } })
    fake.advance(0.3)
    expect(player.position).toBeCloseTo(1.5)
    player.switchTo('a')
    expect(fake.playing.at(-1)?.offset).toBeCloseTo(1.5)
  })

  it('plays each side of a comparison at its own gain, switching and changing it inside the fade', () => {
    const a = take('a', 3)
    const b = take('b', 3)
    player.compare(a, b, { a: 0.5, b: 1 })
    player.play(a)
    expect(fake.playing.at(-1)?.gain?.rampTo).toEqual({ value: 0.5, at: fake.currentTime + 0.005 })
    fake.advance(1)
    player.switchTo('b')
    expect(fake.playing.at(-1)?.gain?.rampTo).toEqual({ value: 1, at: fake.currentTime + 0.005 })
    player.switchTo('a')
    expect(fake.playing.at(-1)?.gain?.rampTo?.value).toBe(0.5)
    // Matching turned off while A plays: A goes back to its own level at once, without a new source.
    const sources = fake.sources.length
    player.setGains({ a: 1, b: 1 })
    expect(fake.sources.length).toBe(sources)
    expect(fake.playing.at(-1)?.gain?.rampTo).toEqual({ value: 1, at: fake.currentTime + 0.005 })
    expect(player.state.compare?.gains).toEqual({ a: 1, b: 1 })
    // A take played on its own is never turned down.
    player.play(take('c', 1))
    expect(fake.playing.at(-1)?.gain?.rampTo?.value).toBe(1)
  })

  it('keeps the position when switching while paused, and waits at the end of a shorter take', () => {
    const a = take('a', 3)
    const b = take('b', 1)
    player.compare(a, b)
    player.play(a)
    fake.advance(2)
    player.pause()
    player.switchTo('b')
    expect(player.state.playing).toBe(false)
    expect(player.position).toBe(1)
    player.switchTo('a')
    expect(player.position).toBe(1)
    player.play(a)
    fake.advance(1.5)
    player.switchTo('b')
    expect(player.state.playing).toBe(false)
    expect(fake.playing.filter((s) => s.stopAt === null)).toHaveLength(0)
  })

  it('ends the comparison when another take plays, and forgets a deleted take', () => {
    const a = take('a', 1)
    player.compare(a, take('b', 1))
    player.play(take('c', 1))
    expect(player.state.compare).toBeNull()
    player.unload('c')
    expect(player.state).toMatchObject({ takeId: null, playing: false })
  })
})
