import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { audioStart } from './audio-start.ts'
import { type CompressedFormat, encodeCompressed, encodeWhole, holdWarmEncoders } from './encode.ts'
import { spareCount } from './warm.ts'

const run = promisify(execFile)
const RATE = 24_000
const FREQUENCY = 440
const AMPLITUDE = 10_000

/** What ffprobe should find, and how much longer than the input the decoded audio may be. */
const FORMATS: { format: CompressedFormat; codec: string; container: string; slack: number }[] = [
  // MP3 and ADTS carry no gapless info, so the encoder delay and the last frame's padding stay in.
  { format: 'mp3', codec: 'mp3', container: 'mp3', slack: 0.1 },
  { format: 'opus', codec: 'opus', container: 'ogg', slack: 0 },
  { format: 'aac', codec: 'aac', container: 'aac', slack: 0.1 },
  { format: 'flac', codec: 'flac', container: 'flac', slack: 0 },
]

function tone(start: number, length: number): Int16Array {
  return Int16Array.from({ length }, (_, i) =>
    Math.round(AMPLITUDE * Math.sin((2 * Math.PI * FREQUENCY * (start + i)) / RATE)),
  )
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A 440 Hz sine cut into chunks of the given sizes (repeated), optionally arriving with a delay each. */
async function* sine(
  seconds: number,
  {
    sizes = [RATE / 10],
    delayMs = 0,
    onEnd,
  }: { sizes?: number[]; delayMs?: number; onEnd?: () => void } = {},
): AsyncGenerator<Int16Array> {
  const total = Math.round(seconds * RATE)
  for (let at = 0, i = 0; at < total; i++) {
    const length = Math.min(sizes[i % sizes.length] ?? 0, total - at)
    if (delayMs > 0) await sleep(delayMs)
    yield tone(at, length)
    at += length
  }
  onEnd?.()
}

// The mp3, aac and flac encoders run in worker threads, each with a message port.
const ports = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length
let idlePorts = 0
let dir = ''
beforeAll(async () => {
  idlePorts = ports()
  dir = await mkdtemp(join(tmpdir(), 'codecs-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function encodeToFile(format: CompressedFormat, pcm: AsyncIterable<Int16Array>): Promise<string> {
  const parts: Uint8Array[] = []
  for await (const bytes of encodeCompressed(format, pcm)) parts.push(bytes)
  const file = join(dir, `${Math.random().toString(36).slice(2)}.${format}`)
  await writeFile(file, Buffer.concat(parts))
  return file
}

async function probe(file: string) {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_streams',
    '-show_format',
    '-of',
    'json',
    file,
  ])
  const info = JSON.parse(stdout) as {
    streams: { codec_name: string; sample_rate: string; channels: number }[]
    format: { format_name: string }
  }
  expect(info.streams).toHaveLength(1)
  return { ...info.streams[0], container: info.format.format_name }
}

/** Decodes with ffmpeg to 24 kHz mono PCM16 (Opus is always decoded at 48 kHz, so it is resampled). */
async function decode(file: string): Promise<Int16Array> {
  const args = ['-v', 'error', '-i', file, '-f', 's16le', '-ac', '1', '-ar', String(RATE), '-']
  const { stdout } = await run('ffmpeg', args, { encoding: 'buffer', maxBuffer: 64 << 20 })
  return new Int16Array(stdout.buffer, stdout.byteOffset, stdout.byteLength / 2)
}

/** Amplitude of the component at `frequency` (Goertzel). */
function amplitudeAt(samples: Int16Array, frequency: number): number {
  const coeff = 2 * Math.cos((2 * Math.PI * frequency) / RATE)
  let s1 = 0
  let s2 = 0
  for (const x of samples) {
    const s0 = x + coeff * s1 - s2
    s2 = s1
    s1 = s0
  }
  return (2 * Math.sqrt(s1 * s1 + s2 * s2 - coeff * s1 * s2)) / samples.length
}

function dominantFrequency(samples: Int16Array): number {
  let best = 0
  let bestAmplitude = 0
  for (let f = 50; f <= 4000; f += 2) {
    const a = amplitudeAt(samples, f)
    if (a > bestAmplitude) [best, bestAmplitude] = [f, a]
  }
  return best
}

/** Checks the file with the real ffprobe/ffmpeg: codec, 24 kHz mono, length, and that a 440 Hz tone came out. */
async function expectSine(file: string, expected: (typeof FORMATS)[number], seconds: number) {
  const stream = await probe(file)
  expect(stream.codec_name).toBe(expected.codec)
  expect(stream.container).toBe(expected.container)
  expect(stream.channels).toBe(1)
  // libopus always decodes at 48 kHz; the rate encoded at is recorded in the Opus header instead.
  expect(Number(stream.sample_rate)).toBe(expected.format === 'opus' ? 48_000 : RATE)

  const decoded = await decode(file)
  expect(decoded.length / RATE).toBeGreaterThanOrEqual(seconds - 0.002)
  expect(decoded.length / RATE).toBeLessThanOrEqual(seconds + expected.slack + 0.002)
  const middle = decoded.subarray(
    Math.round((seconds / 2 - 0.5) * RATE),
    Math.round((seconds / 2 + 0.5) * RATE),
  )
  expect(Math.abs(dominantFrequency(middle) - FREQUENCY)).toBeLessThanOrEqual(2)
  expect(amplitudeAt(middle, FREQUENCY) / AMPLITUDE).toBeCloseTo(1, 1)
}

describe.each(FORMATS)('encodeCompressed $format', (expected) => {
  it('encodes 3 s of a sine in 0.1 s chunks as a file ffmpeg decodes to the same tone and length', async () => {
    await expectSine(await encodeToFile(expected.format, sine(3)), expected, 3)
  })

  it('gives the same result for uneven and empty chunks', async () => {
    const sizes = [1, 37, 0, 480, 2399, 4801, 11, 24_000]
    await expectSine(await encodeToFile(expected.format, sine(3.2, { sizes })), expected, 3.2)
  })

  it('yields nothing for no input', async () => {
    const parts: Uint8Array[] = []
    for await (const bytes of encodeCompressed(expected.format, sine(0))) parts.push(bytes)
    expect(parts).toEqual([])
  })

  it('passes an input failure on to the consumer', async () => {
    async function* failing() {
      yield tone(0, RATE)
      throw new Error('synthesis failed')
    }
    const consume = async () => {
      for await (const _ of encodeCompressed(expected.format, failing()));
    }
    await expect(consume()).rejects.toThrow('synthesis failed')
  })
})

it('records the 24 kHz input rate in the Opus header', async () => {
  const parts: Uint8Array[] = []
  for await (const bytes of encodeCompressed('opus', sine(0.5))) parts.push(bytes)
  const file = Buffer.concat(parts)
  const head = file.indexOf('OpusHead')
  expect(head).toBeGreaterThan(0)
  expect(file.readUInt32LE(head + 12)).toBe(RATE)
})

describe.concurrent('streaming', () => {
  it.for(FORMATS)('$format yields bytes while the input is still arriving', async (expected, ctx) => {
    let inputEnded = false
    let bytesBeforeEnd = 0
    let bytes = 0
    // 4 s of audio in 0.1 s chunks, arriving over at least 2 s
    const pcm = sine(4, { delayMs: 50, onEnd: () => (inputEnded = true) })
    for await (const part of encodeCompressed(expected.format, pcm)) {
      if (!inputEnded) bytesBeforeEnd += part.length
      bytes += part.length
    }
    // Order, not speed: output that only began after the last input chunk would be 0 here.
    ctx.expect(bytesBeforeEnd).toBeGreaterThan(0)
    ctx.expect(bytes).toBeGreaterThan(bytesBeforeEnd)
  })
})

/** Records the moment the bytes so far first reach past the format's header, i.e. carry audio. */
function firstAudio(format: CompressedFormat, onAudio: () => void) {
  const parts: Uint8Array[] = []
  let seen = false
  return {
    parts,
    add(part: Uint8Array) {
      parts.push(part)
      if (seen) return
      const prefix = Buffer.concat(parts)
      const start = audioStart(format, prefix)
      if (start !== undefined && prefix.length > start) {
        seen = true
        onAudio()
      }
    },
  }
}

describe('first audio', () => {
  // Input enough for the first frame: Opus 3 packets (encode.ts sends the first audio page with one, and the muxer
  // holds the newest two back), the others their first frame past the encoder delay (FLAC: a 4,096-sample block).
  const FIRST_SECONDS: Record<CompressedFormat, number> = { opus: 0.06, mp3: 0.2, aac: 0.2, flac: 0.2 }

  it.for(FORMATS)(
    '$format sends its first audio frame/page before it is given more input, and the whole decodes',
    async (expected) => {
      const { format } = expected
      const first = Math.round(FIRST_SECONDS[format] * RATE)
      const order: string[] = []
      let audioOut = () => {}
      const audio = new Promise<void>((resolve) => (audioOut = resolve))
      async function* pcm() {
        yield tone(0, first)
        // Order, not speed: the wait ends when the first audio is out; the timer only keeps a frame held back until
        // more input from hanging the test.
        await Promise.race([audio, sleep(10_000)])
        order.push('more input')
        yield tone(first, 2 * RATE)
      }
      const out = firstAudio(format, () => {
        order.push('first audio')
        audioOut()
      })
      for await (const part of encodeCompressed(format, pcm())) out.add(part)
      expect(order).toEqual(['first audio', 'more input'])
      const file = join(dir, `first-${format}`)
      await writeFile(file, Buffer.concat(out.parts))
      await expectSine(file, expected, first / RATE + 2)
    },
  )

  it('lets the event loop turn between Opus frames, so a page written can leave before a long chunk is encoded', async () => {
    // libopus runs on this thread: without turns, a socket would get nothing until the whole chunk was encoded.
    let turns = 0
    let ticking = true
    const tick = () => {
      turns++
      if (ticking) setImmediate(tick)
    }
    setImmediate(tick)
    let turnsAtFirstAudio = -1
    const out = firstAudio('opus', () => (turnsAtFirstAudio = turns))
    try {
      for await (const part of encodeCompressed('opus', sine(3, { sizes: [3 * RATE] }))) out.add(part)
    } finally {
      ticking = false
    }
    expect(turnsAtFirstAudio).toBeGreaterThanOrEqual(0)
    // Turns after the first page: one per frame of the 150 still to encode.
    expect(turns - turnsAtFirstAudio).toBeGreaterThan(100)
  })
})

describe.each(FORMATS)('stopping $format', ({ format }) => {
  /** Endless 0.1 s chunks every 20 ms; records whether the encoder closed it. */
  function endless() {
    const state = { pulled: 0, closed: false }
    async function* chunks(): AsyncGenerator<Int16Array> {
      try {
        for (;;) {
          await sleep(20)
          yield tone(state.pulled++ * 2400, 2400)
        }
      } finally {
        state.closed = true
      }
    }
    return { state, pcm: chunks() }
  }
  it('stops promptly when the signal aborts, closing the input and the encoder', async () => {
    const { state, pcm } = endless()
    const controller = new AbortController()
    let busyPorts = 0
    const consume = async () => {
      for await (const _ of encodeCompressed(format, pcm, { signal: controller.signal })) {
        if (state.pulled >= 10 && !controller.signal.aborted) {
          busyPorts = ports()
          controller.abort()
        }
      }
    }
    await expect(consume()).rejects.toMatchObject({ name: 'AbortError' })
    await vi.waitFor(() => expect(state.closed).toBe(true))
    if (format !== 'opus') expect(busyPorts).toBeGreaterThan(idlePorts)
    await vi.waitFor(() => expect(ports()).toBe(idlePorts))
    const pulled = state.pulled
    await sleep(100)
    expect(state.pulled).toBe(pulled)
  })

  it('stops promptly when the consumer stops iterating', async () => {
    const { state, pcm } = endless()
    let got = 0
    for await (const part of encodeCompressed(format, pcm)) {
      got += part.length
      if (state.pulled >= 10) break
    }
    expect(got).toBeGreaterThan(0)
    await vi.waitFor(() => expect(state.closed).toBe(true))
    await vi.waitFor(() => expect(ports()).toBe(idlePorts))
  })

  it('throws at once for an already aborted signal, without reading the input', async () => {
    const { state, pcm } = endless()
    const consume = async () => {
      for await (const _ of encodeCompressed(format, pcm, { signal: AbortSignal.abort() }));
    }
    await expect(consume()).rejects.toMatchObject({ name: 'AbortError' })
    expect(state.pulled).toBe(0)
  })
})

/** FLAC's STREAMINFO (the first metadata block): sample rate, channels and total samples (0 when unknown). */
function streamInfo(file: Buffer) {
  expect(file.toString('latin1', 0, 4)).toBe('fLaC')
  expect((file[4] as number) & 0x7f).toBe(0) // block type STREAMINFO
  const at = 8 + 10
  return {
    sampleRate:
      ((file[at] as number) << 12) | ((file[at + 1] as number) << 4) | ((file[at + 2] as number) >> 4),
    channels: (((file[at + 2] as number) >> 1) & 0x07) + 1,
    totalSamples: ((file[at + 3] as number) & 0x0f) * 2 ** 32 + file.readUInt32BE(at + 4),
  }
}

async function collectBytes(format: CompressedFormat, pcm: AsyncIterable<Int16Array>): Promise<Buffer> {
  const parts: Uint8Array[] = []
  for await (const bytes of encodeCompressed(format, pcm)) parts.push(bytes)
  return Buffer.concat(parts)
}

describe('complete files', () => {
  it('states the length of a complete FLAC file in STREAMINFO, where a stream leaves it unknown', async () => {
    const samples = tone(0, Math.round(2.5 * RATE))
    const file = Buffer.from(await encodeWhole('flac', samples))
    expect(streamInfo(file)).toEqual({ sampleRate: RATE, channels: 1, totalSamples: samples.length })
    const streamed = await collectBytes('flac', sine(2.5))
    expect(streamInfo(streamed).totalSamples).toBe(0)
    const path = join(dir, 'whole.flac')
    await writeFile(path, file)
    await expectSine(path, FORMATS[3] as (typeof FORMATS)[number], 2.5)
  })

  it.for(FORMATS)(
    'encodes a complete $format file that decodes to the same tone and length',
    async (expected) => {
      const file = join(dir, `whole-${expected.format}`)
      await writeFile(file, await encodeWhole(expected.format, tone(0, 2 * RATE)))
      await expectSine(file, expected, 2)
    },
  )

  it('gives an MP3 file its Xing frame, and no bytes for no input', async () => {
    const file = Buffer.from(await encodeWhole('mp3', tone(0, RATE)))
    expect(file.indexOf('Xing') >= 0 || file.indexOf('Info') >= 0).toBe(true)
    expect(await encodeWhole('flac', new Int16Array(0))).toHaveLength(0)
  })
})

describe('warm encoders', () => {
  it('keeps one started encoder per format while held, gives the same bytes, and closes them on release', async () => {
    const formats = ['mp3', 'aac', 'flac'] as const
    const cold = await Promise.all(formats.map((f) => collectBytes(f, sine(1))))
    const release = holdWarmEncoders()
    try {
      await vi.waitFor(() => expect(spareCount()).toBe(formats.length), { timeout: 10_000 })
      for (const [i, format] of formats.entries()) {
        expect((await collectBytes(format, sine(1))).equals(cold[i] as Buffer)).toBe(true)
      }
      // Each one handed out is replaced.
      await vi.waitFor(() => expect(spareCount()).toBe(formats.length), { timeout: 10_000 })
    } finally {
      release()
    }
    expect(spareCount()).toBe(0)
    await vi.waitFor(() => expect(ports()).toBe(idlePorts), { timeout: 10_000 })
  })
})
