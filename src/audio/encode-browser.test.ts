import { beforeAll, describe, expect, it } from 'vitest'
import { CONTENT_TYPES, type ResponseFormat, SAMPLE_RATE } from '../../schema/index.ts'
import { decodeAudio } from '../../server/engine/codecs/decode.ts'
import { registerOpusEncoder } from '../../server/engine/codecs/opus.ts'
import { encodePcm, FILE_EXTENSIONS, fileNameFor } from './encode-browser.ts'

const TONE_HZ = 440
const AMPLITUDE = 0.5
const SECONDS = 1.5

const tone = Int16Array.from({ length: SECONDS * SAMPLE_RATE }, (_, i) =>
  Math.round(AMPLITUDE * 32767 * Math.sin((2 * Math.PI * TONE_HZ * i) / SAMPLE_RATE)),
)

/** The middle half, clear of encoder delay and padding. */
const middle = (s: Float32Array) => s.subarray(Math.floor(s.length / 4), Math.floor((3 * s.length) / 4))

/** Upward zero crossings per second: a pure tone's frequency. */
function frequency(samples: Float32Array, sampleRate: number): number {
  let crossings = 0
  for (let i = 1; i < samples.length; i++)
    if ((samples[i - 1] ?? 0) < 0 && (samples[i] ?? 0) >= 0) crossings++
  return (crossings * sampleRate) / samples.length
}

function rms(samples: Float32Array): number {
  let sum = 0
  for (const v of samples) sum += v * v
  return Math.sqrt(sum / samples.length)
}

async function roundTrip(format: ResponseFormat) {
  const blob = await encodePcm(tone, format)
  expect(blob.type).toBe(CONTENT_TYPES[format])
  const bytes = new Uint8Array(await blob.arrayBuffer())
  return { bytes, audio: await decodeAudio(bytes) }
}

describe('encodePcm', () => {
  beforeAll(() => {
    // Node has no WebCodecs; the service's libopus encoder stands in for the browser's own Opus encoder.
    if (typeof AudioEncoder === 'undefined') registerOpusEncoder()
  })

  it('gives pcm as the exact little-endian sample bytes', async () => {
    const blob = await encodePcm(tone, 'pcm')
    // A Blob's type is lowercased; media types are case-insensitive.
    expect(blob.type).toBe(CONTENT_TYPES.pcm.toLowerCase())
    const view = new DataView(await blob.arrayBuffer())
    expect(view.byteLength).toBe(tone.length * 2)
    for (const i of [0, 1, 7, 1000, tone.length - 1]) expect(view.getInt16(i * 2, true)).toBe(tone[i])
  })

  it('writes wav as 24 kHz mono PCM16 holding the samples unchanged', async () => {
    const { bytes, audio } = await roundTrip('wav')
    const view = new DataView(bytes.buffer)
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe('RIFF')
    expect(view.getUint16(20, true)).toBe(1) // integer PCM
    expect(view.getUint16(22, true)).toBe(1)
    expect(view.getUint32(24, true)).toBe(SAMPLE_RATE)
    expect(view.getUint16(34, true)).toBe(16)
    expect(audio.sampleRate).toBe(SAMPLE_RATE)
    expect(Array.from(audio.samples, (v) => Math.round(v * 32768))).toEqual(Array.from(tone))
  })

  it('keeps flac lossless', async () => {
    const { audio } = await roundTrip('flac')
    expect(audio.format).toBe('flac')
    expect(audio.sampleRate).toBe(SAMPLE_RATE)
    expect(audio.samples.length).toBe(tone.length)
    // The FLAC decoder scales by 32767, so a sample may come back one step off, never more.
    const worst = audio.samples.reduce((m, v, i) => Math.max(m, Math.abs(v * 32768 - (tone[i] ?? 0))), 0)
    expect(worst).toBeLessThanOrEqual(1)
  })

  it.each(['mp3', 'aac', 'opus'] as const)('encodes %s that decodes to the tone', async (format) => {
    const { audio } = await roundTrip(format)
    expect(audio.format).toBe(format === 'opus' ? 'ogg' : format)
    expect(Math.abs(audio.durationSeconds - SECONDS) / SECONDS).toBeLessThan(0.05)
    const body = middle(audio.samples)
    expect(Math.abs(frequency(body, audio.sampleRate) - TONE_HZ)).toBeLessThan(3)
    expect(rms(body)).toBeGreaterThan((AMPLITUDE / Math.SQRT2) * 0.85)
    expect(rms(body)).toBeLessThan((AMPLITUDE / Math.SQRT2) * 1.15)
  })

  // The lossy downloads are asked for by bitrate (96 kb/s MP3 and AAC, 48 kb/s Opus): the file size shows it was
  // honoured, not taken for some other quality setting.
  it.each([
    ['mp3', 96_000],
    ['aac', 96_000],
    ['opus', 48_000],
  ] as const)('encodes %s near its bitrate', async (format, bitrate) => {
    const { bytes } = await roundTrip(format)
    const expected = (bitrate * SECONDS) / 8
    expect(bytes.length).toBeGreaterThan(expected * 0.5)
    expect(bytes.length).toBeLessThan(expected * 1.6)
  })

  it('refuses to encode no audio into a container', async () => {
    await expect(encodePcm(new Int16Array(0), 'mp3')).rejects.toThrow(RangeError)
  })
})

describe('fileNameFor', () => {
  it('gives each format its extension, replacing any the name has', () => {
    expect(fileNameFor('Chapter 1', 'mp3')).toBe('Chapter 1.mp3')
    expect(fileNameFor('take.wav', 'opus')).toBe('take.opus')
    expect(fileNameFor('  ', 'pcm')).toBe('speech.pcm')
    expect(fileNameFor('Scene 1.2', 'flac')).toBe('Scene 1.2.flac')
    expect(Object.keys(FILE_EXTENSIONS).sort()).toEqual(Object.keys(CONTENT_TYPES).sort())
  })
})
