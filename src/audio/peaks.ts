/**
 * Waveform peaks: the largest absolute sample in each of N equal slices of a recording, 0…1, three decimals. The
 * review page draws the waveform from them (wavesurfer.js never decodes the recording), and the backend keeps them
 * with the transcript so a long recording is measured once.
 *
 * WAV (PCM 8/16/24/32-bit, float 32/64, WAVE_FORMAT_EXTENSIBLE) is read straight from its bytes, a slice at a time;
 * other formats are decoded by the browser (`decodeToMono` in peaks-browser.ts) and measured here.
 */

import { readWav, WAVE_FORMAT_IEEE_FLOAT, WAVE_FORMAT_PCM } from '../../core/wav.ts'

/** How many peaks for a recording of `duration` seconds: 100 a second, at most 120,000 (a 20-minute recording). */
export function peakCountFor(duration: number): number {
  if (!Number.isFinite(duration) || duration <= 0) return 1
  return Math.max(1, Math.min(120_000, Math.ceil(duration * 100)))
}

const round3 = (v: number) => Math.round(Math.min(1, v) * 1000) / 1000

/** Peaks of mono float samples in `count` equal slices. */
export function peaksOfSamples(samples: Float32Array, count: number): number[] {
  const acc = new PeakAccumulator(samples.length, count)
  acc.add(samples)
  return acc.finish()
}

/** Collects peaks from samples given in pieces, for a known total length. */
export class PeakAccumulator {
  private readonly peaks: Float32Array
  private seen = 0

  constructor(
    private readonly totalFrames: number,
    readonly count: number,
  ) {
    this.peaks = new Float32Array(Math.max(1, count))
  }

  /** Adds the next `samples` (mono, in order). */
  add(samples: ArrayLike<number>): void {
    const { peaks, totalFrames } = this
    const n = peaks.length
    for (let i = 0; i < samples.length; i++) {
      const frame = this.seen + i
      const slot = Math.min(n - 1, Math.floor((frame * n) / Math.max(1, totalFrames)))
      const v = Math.abs(samples[i] as number)
      if (v > (peaks[slot] as number)) peaks[slot] = v
    }
    this.seen += samples.length
  }

  finish(): number[] {
    return Array.from(this.peaks, round3)
  }
}

export interface WavFormat {
  /** 1 PCM integer, 3 IEEE float. */
  format: 1 | 3
  channels: number
  sampleRate: number
  bitsPerSample: number
  dataOffset: number
  /** Bytes of sample data (clipped to the file). */
  dataBytes: number
}

/**
 * The header of a WAV file these peaks read (PCM 8/16/24/32-bit or float 32/64, extensible or not), or null for
 * anything else. The header itself is read by the one WAV reader (core/wav.ts).
 */
export function wavFormat(bytes: DataView): WavFormat | null {
  const wav = readWav(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength))
  const fmt = wav?.fmt
  const data = wav?.data
  if (!fmt || !data || fmt.channels < 1 || fmt.sampleRate < 1) return null
  const { formatTag: format, channels, sampleRate, bitsPerSample } = fmt
  if (format !== WAVE_FORMAT_PCM && format !== WAVE_FORMAT_IEEE_FLOAT) return null
  const supported =
    format === WAVE_FORMAT_PCM ? [8, 16, 24, 32].includes(bitsPerSample) : [32, 64].includes(bitsPerSample)
  if (!supported) return null
  return { format, channels, sampleRate, bitsPerSample, dataOffset: data.offset, dataBytes: data.bytes }
}

/** Duration in seconds of the sample data a WAV header describes. */
export function wavDuration(f: WavFormat): number {
  return f.dataBytes / ((f.bitsPerSample / 8) * f.channels) / f.sampleRate
}

/**
 * Peaks straight from a whole WAV file's bytes (channels mixed by taking the loudest), or null for anything else.
 * Reads the samples in place: no decoded copy of the recording is made.
 */
export function peaksOfWav(buffer: ArrayBuffer): { data: number[]; duration: number } | null {
  const view = new DataView(buffer)
  const f = wavFormat(view)
  if (!f) return null
  const bytesPerSample = f.bitsPerSample / 8
  const frameBytes = bytesPerSample * f.channels
  const frames = Math.floor(f.dataBytes / frameBytes)
  if (frames === 0) return null
  const duration = frames / f.sampleRate
  const acc = new PeakAccumulator(frames, peakCountFor(duration))
  const read = sampleReader(view, f)
  const block = new Float32Array(Math.min(frames, 65_536))
  for (let start = 0; start < frames; start += block.length) {
    const n = Math.min(block.length, frames - start)
    for (let i = 0; i < n; i++) {
      let loudest = 0
      const frameAt = f.dataOffset + (start + i) * frameBytes
      for (let c = 0; c < f.channels; c++) {
        const v = Math.abs(read(frameAt + c * bytesPerSample))
        if (v > loudest) loudest = v
      }
      block[i] = loudest
    }
    acc.add(n === block.length ? block : block.subarray(0, n))
  }
  return { data: acc.finish(), duration }
}

function sampleReader(view: DataView, f: WavFormat): (at: number) => number {
  if (f.format === 3)
    return f.bitsPerSample === 64 ? (at) => view.getFloat64(at, true) : (at) => view.getFloat32(at, true)
  switch (f.bitsPerSample) {
    case 8:
      return (at) => (view.getUint8(at) - 128) / 128
    case 16:
      return (at) => view.getInt16(at, true) / 32768
    case 24:
      return (at) => {
        const v = view.getUint8(at) | (view.getUint8(at + 1) << 8) | (view.getInt8(at + 2) << 16)
        return v / 8_388_608
      }
    default:
      return (at) => view.getInt32(at, true) / 2_147_483_648
  }
}
