/**
 * Real encoded files for the decoder's tests and speed measurement, made at run time by the ffmpeg binary (Debian's
 * `ffmpeg` package) so that no audio is committed. Only tests and decode-speed.ts import this; the decoder itself
 * never runs ffmpeg.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { UploadFormat } from '../../../schema/audio-format.ts'

export const hasFfmpeg = spawnSync('ffmpeg', ['-version'], { stdio: 'ignore' }).status === 0

/** The test tone: 440 Hz, 0.6 on the left and 0.2 on the right, so a correct downmix has amplitude 0.4. */
export const TONE_HZ = 440
export const LEFT_AMPLITUDE = 0.6
export const RIGHT_AMPLITUDE = 0.2

export interface Fixture {
  name: string
  format: UploadFormat
  /** The rate the decoder should report. */
  sampleRate: number
  /** ffmpeg output options, after the input. */
  args: string[]
  /** Lossy codecs add their encoder delay and padding; lossless ones are exact. */
  lossy: boolean
}

export const FIXTURES: Fixture[] = [
  { name: 's16.wav', format: 'wav', sampleRate: 44100, args: ['-c:a', 'pcm_s16le'], lossy: false },
  { name: 's24.wav', format: 'wav', sampleRate: 44100, args: ['-c:a', 'pcm_s24le'], lossy: false },
  {
    name: 's32.wav',
    format: 'wav',
    sampleRate: 48000,
    args: ['-ar', '48000', '-c:a', 'pcm_s32le'],
    lossy: false,
  },
  {
    name: 'f32.wav',
    format: 'wav',
    sampleRate: 22050,
    args: ['-ar', '22050', '-c:a', 'pcm_f32le'],
    lossy: false,
  },
  {
    name: 'u8.wav',
    format: 'wav',
    sampleRate: 16000,
    args: ['-ar', '16000', '-c:a', 'pcm_u8'],
    lossy: false,
  },
  {
    name: 'tone.mp3',
    format: 'mp3',
    sampleRate: 44100,
    args: ['-c:a', 'libmp3lame', '-b:a', '128k'],
    lossy: true,
  },
  { name: 'vorbis.ogg', format: 'ogg', sampleRate: 44100, args: ['-c:a', 'libvorbis'], lossy: true },
  {
    name: 'opus.ogg',
    format: 'ogg',
    sampleRate: 48000,
    args: ['-ar', '48000', '-c:a', 'libopus'],
    lossy: true,
  },
  { name: 'tone.aac', format: 'aac', sampleRate: 44100, args: ['-c:a', 'aac', '-f', 'adts'], lossy: true },
  { name: 'tone.flac', format: 'flac', sampleRate: 44100, args: ['-c:a', 'flac'], lossy: false },
  {
    name: 'opus.webm',
    format: 'webm',
    sampleRate: 48000,
    args: ['-ar', '48000', '-c:a', 'libopus'],
    lossy: true,
  },
  // Written to a pipe, as MediaRecorder writes: no duration, no cues, element sizes unknown where the muxer allows.
  {
    name: 'live.webm',
    format: 'webm',
    sampleRate: 48000,
    args: ['-ar', '48000', '-c:a', 'libopus', '-f', 'webm', '-live', '1'],
    lossy: true,
  },
  { name: 'aac.m4a', format: 'mp4', sampleRate: 44100, args: ['-c:a', 'aac', '-b:a', '128k'], lossy: true },
  // A phone's voice memo: mono AAC in M4A.
  {
    name: 'mono.m4a',
    format: 'mp4',
    sampleRate: 44100,
    args: ['-af', 'pan=mono|c0=0.5*c0+0.5*c1', '-c:a', 'aac'],
    lossy: true,
  },
  // Other codecs in the same containers.
  { name: 'aac.mka', format: 'webm', sampleRate: 44100, args: ['-c:a', 'aac'], lossy: true },
  { name: 'mp3.mp4', format: 'mp4', sampleRate: 44100, args: ['-c:a', 'libmp3lame'], lossy: true },
]

/** A scratch directory, removed by the returned function. */
export function scratchDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'decode-fixtures-'))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/**
 * Encodes the test tone (or `source`, an ffmpeg lavfi graph) into `dir/name` and returns the file's bytes. Live
 * WebM goes through a pipe, as its muxer only writes unknown sizes to an unseekable output.
 */
export function makeFixture(
  dir: string,
  fixture: Pick<Fixture, 'name' | 'args'>,
  seconds: number,
  source = toneSource(seconds),
): Uint8Array {
  const path = join(dir, fixture.name)
  const input = ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', source]
  if (fixture.args.includes('-live')) {
    const bytes = execFileSync('ffmpeg', [...input, ...fixture.args, 'pipe:1'], { maxBuffer: 1 << 28 })
    return new Uint8Array(bytes)
  }
  execFileSync('ffmpeg', [...input, ...fixture.args, path])
  return new Uint8Array(readFileSync(path))
}

export function toneSource(seconds: number): string {
  const tone = `sin(2*PI*${TONE_HZ}*t)`
  return `aevalsrc=${LEFT_AMPLITUDE}*${tone}|${RIGHT_AMPLITUDE}*${tone}:s=44100:d=${seconds}`
}
