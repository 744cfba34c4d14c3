import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { firstMp3Frame, id3v2Length, readMp3Header } from '../../../schema/audio-format.ts'
import { AudioDecodeError, type DecodedAudio, decodeAudio } from './decode.ts'
import {
  FIXTURES,
  hasFfmpeg,
  LEFT_AMPLITUDE,
  makeFixture,
  RIGHT_AMPLITUDE,
  scratchDir,
  TONE_HZ,
  toneSource,
} from './decode-fixtures.ts'

/** The RMS of a sine of the downmixed amplitude: (0.6 + 0.2) / 2 / √2. */
const MONO_RMS = (LEFT_AMPLITUDE + RIGHT_AMPLITUDE) / 2 / Math.SQRT2

function rms(samples: Float32Array): number {
  let sum = 0
  for (const v of samples) sum += v * v
  return Math.sqrt(sum / samples.length)
}

/** The middle half of the audio, clear of encoder delay, fades and padding. */
function middle(audio: DecodedAudio): Float32Array {
  const n = audio.samples.length
  return audio.samples.subarray(Math.floor(n / 4), Math.floor((3 * n) / 4))
}

/** A pure tone's frequency from its zero crossings (upward only, so that noise near zero counts less). */
function toneFrequency(samples: Float32Array, sampleRate: number): number {
  let crossings = 0
  for (let i = 1; i < samples.length; i++) {
    if ((samples[i - 1] ?? 0) < 0 && (samples[i] ?? 0) >= 0) crossings++
  }
  return (crossings * sampleRate) / samples.length
}

/** A PCM WAV of `frames` frames whose channel c holds value(c, i); 8-bit is unsigned, as the format says. */
function wavBytes(opts: {
  sampleRate: number
  channels: number
  bits: 8 | 16 | 24 | 32
  float?: boolean
  frames: number
  value: (channel: number, index: number) => number
}): Uint8Array {
  const { sampleRate, channels, bits, frames } = opts
  const blockAlign = channels * (bits / 8)
  const bytes = new Uint8Array(44 + frames * blockAlign)
  const view = new DataView(bytes.buffer)
  const text = (offset: number, s: string) => {
    for (let i = 0; i < s.length; i++) bytes[offset + i] = s.charCodeAt(i)
  }
  text(0, 'RIFF')
  view.setUint32(4, bytes.length - 8, true)
  text(8, 'WAVEfmt ')
  view.setUint32(16, 16, true)
  view.setUint16(20, opts.float ? 3 : 1, true)
  view.setUint16(22, channels, true)
  view.setUint32(24, sampleRate, true)
  view.setUint32(28, sampleRate * blockAlign, true)
  view.setUint16(32, blockAlign, true)
  view.setUint16(34, bits, true)
  text(36, 'data')
  view.setUint32(40, frames * blockAlign, true)
  let pos = 44
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < channels; c++) {
      const v = opts.value(c, i)
      if (opts.float) view.setFloat32(pos, v, true)
      else if (bits === 8) view.setUint8(pos, Math.round(v * 127) + 128)
      else if (bits === 16) view.setInt16(pos, Math.round(v * 32767), true)
      else if (bits === 24) {
        const s = Math.round(v * 8388607)
        view.setUint16(pos, s & 0xffff, true)
        view.setInt8(pos + 2, s >> 16)
      } else view.setInt32(pos, Math.round(v * 2147483647), true)
      pos += bits / 8
    }
  }
  return bytes
}

const stereoTone = (sampleRate: number) => (channel: number, i: number) =>
  (channel === 0 ? LEFT_AMPLITUDE : RIGHT_AMPLITUDE) * Math.sin((2 * Math.PI * TONE_HZ * i) / sampleRate)

async function decodeError(promise: Promise<unknown>): Promise<AudioDecodeError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(AudioDecodeError)
  return error as AudioDecodeError
}

describe('decodeAudio on WAV built in the test', () => {
  it.each([8, 16, 24, 32] as const)(
    'decodes %i-bit PCM stereo and downmixes it to the channel average',
    async (bits) => {
      const bytes = wavBytes({
        sampleRate: 16000,
        channels: 2,
        bits,
        frames: 16000,
        value: stereoTone(16000),
      })
      const audio = await decodeAudio(bytes)
      expect(audio).toMatchObject({ format: 'wav', sampleRate: 16000, durationSeconds: 1 })
      expect(audio.samples.length).toBe(16000)
      expect(rms(audio.samples)).toBeCloseTo(MONO_RMS, 2)
      expect(toneFrequency(audio.samples, 16000)).toBeCloseTo(TONE_HZ, -1)
    },
  )

  it('decodes 32-bit float with four channels', async () => {
    const value = (c: number, i: number) => (c + 1) * 0.1 * Math.sin((2 * Math.PI * TONE_HZ * i) / 8000)
    const bytes = wavBytes({ sampleRate: 8000, channels: 4, bits: 32, float: true, frames: 4000, value })
    const audio = await decodeAudio(bytes)
    // Channels at 0.1, 0.2, 0.3, 0.4 average to 0.25.
    expect(rms(audio.samples)).toBeCloseTo(0.25 / Math.SQRT2, 3)
    expect(audio.durationSeconds).toBe(0.5)
  })

  it('resamples to the target rate, keeping length and tone', async () => {
    const bytes = wavBytes({
      sampleRate: 44100,
      channels: 2,
      bits: 16,
      frames: 44100,
      value: stereoTone(44100),
    })
    const audio = await decodeAudio(bytes, { targetRate: 16000 })
    expect(audio.sampleRate).toBe(16000)
    expect(audio.samples.length).toBe(16000)
    expect(toneFrequency(middle(audio), 16000)).toBeCloseTo(TONE_HZ, -1)
    expect(rms(middle(audio))).toBeCloseTo(MONO_RMS, 2)
  })

  it('refuses a file cut inside its data chunk', async () => {
    const bytes = wavBytes({ sampleRate: 16000, channels: 1, bits: 16, frames: 16000, value: () => 0 })
    const error = await decodeError(decodeAudio(bytes.subarray(0, 20000)))
    expect(error.code).toBe('corrupt_audio')
    expect(error.message).toMatch(/cut short/)
  })

  it('refuses a WAV without audio', async () => {
    const bytes = wavBytes({ sampleRate: 16000, channels: 1, bits: 16, frames: 0, value: () => 0 })
    expect((await decodeError(decodeAudio(bytes))).code).toBe('corrupt_audio')
  })

  it('stops audio longer than the allowed duration', async () => {
    const bytes = wavBytes({ sampleRate: 8000, channels: 1, bits: 16, frames: 24000, value: () => 0 })
    expect((await decodeError(decodeAudio(bytes, { maxDurationSeconds: 2 }))).code).toBe('too_long')
  })

  it('answers unsupported_format for random bytes, text and nothing', async () => {
    let seed = 42
    const random = Uint8Array.from({ length: 4096 }, () => {
      seed = (seed * 1103515245 + 12345) >>> 0
      return seed >>> 24
    })
    for (const bytes of [random, new TextEncoder().encode('just some text, not audio'), new Uint8Array(0)]) {
      expect((await decodeError(decodeAudio(bytes))).code).toBe('unsupported_format')
    }
  })

  it('rejects a target rate outside what the resampler handles', async () => {
    const bytes = wavBytes({ sampleRate: 16000, channels: 1, bits: 16, frames: 100, value: () => 0 })
    await expect(decodeAudio(bytes, { targetRate: 0 })).rejects.toThrow(RangeError)
    await expect(decodeAudio(bytes, { targetRate: 16000.5 })).rejects.toThrow(RangeError)
  })

  it('stops a decode that runs past its time, and decodes the next file in a fresh thread', async () => {
    // 30 s of 48 kHz stereo: copying it to the worker alone takes longer than the 1 ms allowed.
    const long = wavBytes({ sampleRate: 48000, channels: 2, bits: 16, frames: 48000 * 30, value: () => 0.1 })
    const error = await decodeError(decodeAudio(long, { timeoutMs: 1 }))
    expect(error.code).toBe('corrupt_audio')
    expect(error.message).toMatch(/did not finish/)
    const bytes = wavBytes({ sampleRate: 16000, channels: 1, bits: 16, frames: 16000, value: () => 0.1 })
    expect((await decodeAudio(bytes)).durationSeconds).toBe(1)
  })

  it('decodes several files at once', async () => {
    const files = [8000, 16000, 22050, 44100].map((rate) =>
      wavBytes({ sampleRate: rate, channels: 1, bits: 16, frames: rate, value: () => 0 }),
    )
    const results = await Promise.all(files.map((bytes) => decodeAudio(bytes)))
    expect(results.map((r) => r.sampleRate)).toEqual([8000, 16000, 22050, 44100])
  })
})

describe.skipIf(!hasFfmpeg)('decodeAudio on files encoded by ffmpeg', () => {
  const SECONDS = 2
  const files = new Map<string, Uint8Array>()
  const scratch = hasFfmpeg ? scratchDir() : null

  beforeAll(() => {
    if (!scratch) return
    for (const fixture of FIXTURES) files.set(fixture.name, makeFixture(scratch.dir, fixture, SECONDS))
  }, 60_000)
  afterAll(() => scratch?.remove())

  const bytesOf = (name: string): Uint8Array => {
    const bytes = files.get(name)
    if (!bytes) throw new Error(`no fixture ${name}`)
    return bytes
  }

  it.each(FIXTURES)('$name: format, rate, length, downmix and tone', async (fixture) => {
    const audio = await decodeAudio(bytesOf(fixture.name))
    expect(audio.format).toBe(fixture.format)
    expect(audio.sampleRate).toBe(fixture.sampleRate)
    // Lossy encoders add up to a frame or two of delay and padding (Opus 6.5 ms, MP3 and AAC up to 50 ms).
    if (fixture.lossy) expect(Math.abs(audio.durationSeconds - SECONDS)).toBeLessThan(0.06)
    else expect(audio.durationSeconds).toBeCloseTo(SECONDS, 3)
    expect(rms(middle(audio))).toBeCloseTo(MONO_RMS, 1)
    expect(Math.abs(rms(middle(audio)) - MONO_RMS)).toBeLessThan(0.02)
    expect(Math.abs(toneFrequency(middle(audio), audio.sampleRate) - TONE_HZ)).toBeLessThan(2)
  })

  it.each(FIXTURES)('$name: resampled to 16 kHz for speech recognition', async (fixture) => {
    const audio = await decodeAudio(bytesOf(fixture.name), { targetRate: 16000 })
    expect(audio.sampleRate).toBe(16000)
    expect(Math.abs(audio.durationSeconds - SECONDS)).toBeLessThan(0.06)
    expect(Math.abs(toneFrequency(middle(audio), 16000) - TONE_HZ)).toBeLessThan(2)
    expect(Math.abs(rms(middle(audio)) - MONO_RMS)).toBeLessThan(0.02)
  })

  it.each(FIXTURES)('$name: cut in half is corrupt_audio', async (fixture) => {
    const bytes = bytesOf(fixture.name)
    const error = await decodeError(decodeAudio(bytes.subarray(0, Math.floor(bytes.length / 2))))
    expect(error.code).toBe('corrupt_audio')
  })

  it.each(FIXTURES)('$name: cut to its first 100 bytes is corrupt_audio', async (fixture) => {
    const error = await decodeError(decodeAudio(bytesOf(fixture.name).subarray(0, 100)))
    expect(error.code).toBe('corrupt_audio')
  })

  // PCM has no redundancy to find damage by: garbage in a WAV is just noise.
  it.each(FIXTURES.filter((f) => f.lossy || f.format === 'flac'))(
    '$name: garbage after the first 2 KB is corrupt_audio',
    async (fixture) => {
      const bytes = bytesOf(fixture.name).slice()
      let seed = 7
      for (let i = 2048; i < bytes.length; i++) {
        seed = (seed * 1103515245 + 12345) >>> 0
        bytes[i] = seed >>> 24
      }
      expect((await decodeError(decodeAudio(bytes))).code).toBe('corrupt_audio')
    },
  )

  it('decodes 5.1 Opus (channel mapping family 1) and 5.1 WAV to mono', async () => {
    if (!scratch) return
    // The tone on the five full-range channels; the LFE channel (the fourth) stays silent, as Opus low-passes it.
    const channels = [0.3, 0.3, 0.3, 0, 0.3, 0.3].map((a) => `${a}*sin(2*PI*${TONE_HZ}*t)`)
    const source = `aevalsrc=${channels.join('|')}:s=48000:d=1:c=5.1`
    for (const args of [
      ['-c:a', 'libopus', '-mapping_family', '1', '-f', 'ogg'],
      ['-c:a', 'pcm_s16le', '-f', 'wav'],
    ]) {
      const bytes = makeFixture(scratch.dir, { name: `surround-${args[1]}`, args }, 1, source)
      const audio = await decodeAudio(bytes)
      expect(Math.abs(rms(middle(audio)) - (0.3 * 5) / 6 / Math.SQRT2), args[1]).toBeLessThan(0.01)
    }
  })

  it('answers corrupt_audio for an AAC configuration FAAD2 refuses, then decodes the next file', async () => {
    const bytes = bytesOf('aac.m4a').slice()
    // The AudioSpecificConfig ffmpeg writes for 44.1 kHz stereo AAC-LC, turned into one for SBR at 96 kHz.
    const asc = bytes.findIndex((b, i) => b === 0x12 && bytes[i + 1] === 0x10 && bytes[i + 2] === 0x56)
    expect(asc).toBeGreaterThan(0)
    bytes.set([0x29, 0x90], asc)
    expect((await decodeError(decodeAudio(bytes))).code).toBe('corrupt_audio')
    expect((await decodeAudio(bytesOf('aac.m4a'))).format).toBe('mp4')
  })

  it('decodes ADTS behind an ID3v2 tag', async () => {
    const tag = [0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 20, ...new Array<number>(20).fill(0)]
    const bytes = Uint8Array.from([...tag, ...bytesOf('tone.aac')])
    expect(Math.abs((await decodeAudio(bytes)).durationSeconds - SECONDS)).toBeLessThan(0.06)
  })

  it.each(['vorbis.ogg', 'tone.aac', 'opus.webm'])('%s: stops past the allowed duration', async (name) => {
    expect((await decodeError(decodeAudio(bytesOf(name), { maxDurationSeconds: 1 }))).code).toBe('too_long')
  })

  // A video's sound: the Vorbis decoder reads one stream, so the Theora pages interleaved with it are set aside
  // (before, this file was refused as holding "vorbis audio", as if Vorbis were not supported).
  it('decodes the Vorbis sound of an Ogg video, its Theora pictures set aside', async () => {
    const path = `${scratch?.dir}/video.ogg`
    execFileSync('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', `testsrc=size=64x48:rate=10:duration=${SECONDS}`],
      ...['-f', 'lavfi', '-i', toneSource(SECONDS)],
      ...['-c:v', 'libtheora', '-c:a', 'libvorbis', path],
    ])
    const audio = await decodeAudio(readFileSync(path))
    expect(audio.format).toBe('ogg')
    expect(audio.sampleRate).toBe(44100)
    expect(Math.abs(audio.durationSeconds - SECONDS)).toBeLessThan(0.06)
    expect(Math.abs(rms(middle(audio)) - MONO_RMS)).toBeLessThan(0.02)
    expect(Math.abs(toneFrequency(middle(audio), audio.sampleRate) - TONE_HZ)).toBeLessThan(2)
  })

  it('decodes an MP3 whose frames are interrupted by junk', async () => {
    const bytes = bytesOf('tone.mp3')
    // Insert the zeros at a frame boundary past the middle, as a stray tag between two streams would be.
    let at = firstMp3Frame(bytes, id3v2Length(bytes))
    while (at < bytes.length / 2) at += readMp3Header(bytes, at)?.frameLength ?? bytes.length
    const withJunk = new Uint8Array(bytes.length + 1000)
    withJunk.set(bytes.subarray(0, at))
    withJunk.set(bytes.subarray(at), at + 1000)
    const audio = await decodeAudio(withJunk)
    expect(Math.abs(audio.durationSeconds - SECONDS)).toBeLessThan(0.06)
  })
})
