/**
 * Test helper: the part of an AudioContext that TakePlayer uses, with a clock the test moves by hand (Web Audio
 * does not exist in Node or jsdom). Sources fire `onended` when they play out or reach their scheduled stop.
 */

class FakeBuffer {
  readonly duration: number
  private readonly data: Float32Array
  constructor(
    readonly numberOfChannels: number,
    readonly length: number,
    readonly sampleRate: number,
  ) {
    this.duration = length / sampleRate
    this.data = new Float32Array(length)
  }
  getChannelData(): Float32Array {
    return this.data
  }
}

class FakeParam {
  value = 1
  /** The value the last ramp heads for, and when it gets there. */
  rampTo: { value: number; at: number } | null = null
  setValueAtTime(value: number) {
    this.value = value
  }
  linearRampToValueAtTime(value: number, at: number) {
    this.rampTo = { value, at }
  }
  cancelScheduledValues() {
    this.rampTo = null
  }
}

export class FakeSource {
  buffer: FakeBuffer | null = null
  onended: (() => void) | null = null
  startedAt: number | null = null
  offset = 0
  stopAt: number | null = null
  ended = false
  gain: FakeParam | null = null
  connect(node: { gain: FakeParam }) {
    this.gain = node.gain
  }
  start(when: number, offset = 0) {
    this.startedAt = when
    this.offset = offset
  }
  stop(when = 0) {
    this.stopAt = when
  }
}

export class FakeAudioContext {
  currentTime = 0
  readonly destination = {}
  readonly sources: FakeSource[] = []
  createBuffer(channels: number, length: number, rate: number) {
    return new FakeBuffer(channels, length, rate)
  }
  createBufferSource() {
    const source = new FakeSource()
    this.sources.push(source)
    return source
  }
  createGain() {
    return { gain: new FakeParam(), connect() {}, disconnect() {} }
  }
  async resume() {}
  async close() {}

  /** The sources started and not yet ended. */
  get playing(): FakeSource[] {
    return this.sources.filter((s) => s.startedAt !== null && !s.ended)
  }

  /** Moves the clock on, ending every source that has played out or reached its stop time by then. */
  advance(seconds: number) {
    this.currentTime += seconds
    for (const s of this.playing) {
      const playsOutAt = (s.startedAt ?? 0) + (s.buffer?.duration ?? 0) - s.offset
      if (Math.min(playsOutAt, s.stopAt ?? Number.POSITIVE_INFINITY) <= this.currentTime + 1e-9) {
        s.ended = true
        s.onended?.()
      }
    }
  }
}

/** A fake context typed as the real one, for code that takes an AudioContext. */
export function fakeContext(): { fake: FakeAudioContext; make: () => AudioContext } {
  const fake = new FakeAudioContext()
  return { fake, make: () => fake as unknown as AudioContext }
}
