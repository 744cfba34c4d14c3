/**
 * Acoustic features of a sound, for tests that must tell sounds apart and tell them from a beep without a listener:
 * how long, how loud, how bright (spectral centroid, zero crossings), how noisy (spectral flatness), how tonal
 * (share of energy in the single strongest peak), how periodic, and how many bursts.
 */
import { summarizePitch, trackPitch } from './pitch.ts'

export interface SoundFeatures {
  seconds: number
  /** RMS over the whole sound, full scale 1. */
  rms: number
  /** Energy-weighted mean frequency in Hz. */
  centroidHz: number
  /** Zero crossings per second while sounding. */
  zeroCrossings: number
  /** Geometric over arithmetic mean of the power spectrum from 50 Hz to 6 kHz: 1 for white noise, ~0 for a tone. */
  flatness: number
  /** Share of spectral energy within ±2 bins of the strongest one: near 1 for a pure tone. */
  peakShare: number
  /** Peaks of the average spectrum within 30 dB of the strongest: 1 for a pure tone, many for a voice. */
  spectralPeaks: number
  /** Share of sounding frames with a clear pitch, and their median F0 in Hz. */
  voicedShare: number
  medianF0: number
  /** Separate bursts of loudness (laughs have several, a hum one). */
  bursts: number
}

const FFT_SIZE = 1024

/** In-place radix-2 FFT. */
function fft(re: Float64Array, im: Float64Array) {
  const n = re.length
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1
    for (; j & bit; bit >>= 1) j ^= bit
    j ^= bit
    if (i < j) {
      ;[re[i], re[j]] = [re[j] ?? 0, re[i] ?? 0]
      ;[im[i], im[j]] = [im[j] ?? 0, im[i] ?? 0]
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const angle = (-2 * Math.PI) / len
    for (let start = 0; start < n; start += len) {
      for (let k = 0; k < len / 2; k++) {
        const wr = Math.cos(angle * k)
        const wi = Math.sin(angle * k)
        const a = start + k
        const b = a + len / 2
        const br = (re[b] ?? 0) * wr - (im[b] ?? 0) * wi
        const bi = (re[b] ?? 0) * wi + (im[b] ?? 0) * wr
        re[b] = (re[a] ?? 0) - br
        im[b] = (im[a] ?? 0) - bi
        re[a] = (re[a] ?? 0) + br
        im[a] = (im[a] ?? 0) + bi
      }
    }
  }
}

/** RMS of consecutive 10 ms frames. */
function envelope(x: Float64Array, sampleRate: number): number[] {
  const size = Math.round(sampleRate / 100)
  const frames: number[] = []
  for (let start = 0; start + size <= x.length; start += size) {
    let e = 0
    for (let i = start; i < start + size; i++) e += (x[i] ?? 0) ** 2
    frames.push(Math.sqrt(e / size))
  }
  return frames
}

/** Rises above half the peak loudness, each after a dip below a fifth of it. */
function countBursts(env: number[]): number {
  const peak = Math.max(0, ...env)
  let bursts = 0
  let quiet = true
  for (const level of env) {
    if (quiet && level > 0.5 * peak) {
      bursts++
      quiet = false
    } else if (level < 0.2 * peak) quiet = true
  }
  return bursts
}

/** Local maxima (over ±3 bins) no more than 30 dB below the highest. */
function countPeaks(power: Float64Array): number {
  const floor = Math.max(0, ...power) / 1000
  let peaks = 0
  power.forEach((p, k) => {
    if (p < floor || p === 0) return
    for (let j = Math.max(0, k - 3); j <= Math.min(power.length - 1, k + 3); j++)
      if ((power[j] ?? 0) > p) return
    peaks++
  })
  return peaks
}

export function soundFeatures(pcm: Int16Array, sampleRate: number): SoundFeatures {
  const x = Float64Array.from(pcm, (s) => s / 32768)
  const env = envelope(x, sampleRate)
  const loudest = Math.max(0, ...env)
  let energy = 0
  for (const s of x) energy += s * s

  // Spectral features over the frames within 30 dB of the loudest, weighted by their energy.
  const window = Float64Array.from(
    { length: FFT_SIZE },
    (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / FFT_SIZE),
  )
  let weight = 0
  let centroid = 0
  let flatness = 0
  let peakShare = 0
  const average = new Float64Array(FFT_SIZE / 2)
  for (let start = 0; start + FFT_SIZE <= x.length; start += FFT_SIZE / 2) {
    const re = new Float64Array(FFT_SIZE)
    const im = new Float64Array(FFT_SIZE)
    for (let i = 0; i < FFT_SIZE; i++) re[i] = (x[start + i] ?? 0) * (window[i] ?? 0)
    fft(re, im)
    const power = Array.from(
      { length: FFT_SIZE / 2 },
      (_, k) => (re[k] ?? 0) ** 2 + (im[k] ?? 0) ** 2 + 1e-20,
    )
    const total = power.reduce((a, p) => a + p, 0)
    if (Math.sqrt(total / FFT_SIZE) < 0.03 * loudest) continue
    const strongest = power.indexOf(Math.max(...power))
    const aroundPeak = power.slice(Math.max(0, strongest - 2), strongest + 3).reduce((a, p) => a + p, 0)
    const band = power.slice(
      Math.round((50 * FFT_SIZE) / sampleRate),
      Math.round((6000 * FFT_SIZE) / sampleRate),
    )
    const logMean = band.reduce((a, p) => a + Math.log(p), 0) / band.length
    centroid += total * (power.reduce((a, p, k) => a + p * k, 0) / total) * (sampleRate / FFT_SIZE)
    flatness += total * (Math.exp(logMean) / (band.reduce((a, p) => a + p, 0) / band.length))
    peakShare += total * (aroundPeak / total)
    weight += total
    power.forEach((p, k) => {
      average[k] = (average[k] ?? 0) + p
    })
  }

  const sounding = env.flatMap((level, i) => (level > 0.1 * loudest ? [i] : []))
  const frame = Math.round(sampleRate / 100)
  let crossings = 0
  for (const i of sounding) {
    for (let j = i * frame + 1; j < (i + 1) * frame; j++) if ((x[j] ?? 0) * (x[j - 1] ?? 0) < 0) crossings++
  }
  const pitch = summarizePitch(
    trackPitch(pcm, sampleRate, { minHz: 50, maxHz: 800, silenceRms: 0.1 * loudest }),
  )
  return {
    seconds: pcm.length / sampleRate,
    rms: Math.sqrt(energy / Math.max(1, x.length)),
    centroidHz: weight > 0 ? centroid / weight : 0,
    zeroCrossings: sounding.length > 0 ? crossings / (sounding.length / 100) : 0,
    flatness: weight > 0 ? flatness / weight : 0,
    peakShare: weight > 0 ? peakShare / weight : 0,
    voicedShare: pitch.voicedShare,
    medianF0: pitch.medianHz,
    bursts: countBursts(env),
    spectralPeaks: countPeaks(average),
  }
}

export interface SpeechFeatures {
  /** From the first to the last audible sample: the speaking time, without eSpeak's trailing silence. */
  activeSeconds: number
  /** RMS of the audible 20 ms frames in dB full scale: how loud the voice is while it speaks. */
  loudnessDb: number
  /** The loudest 20 ms frame in dB full scale. */
  peakDb: number
  medianF0: number
  /** The highest F0 held for 30 ms (three pitch frames), where a stressed word shows. */
  peakF0: number
  /** Pitch spread between the 10th and 90th percentile, in semitones. */
  rangeSemitones: number
  /** Samples at full scale. */
  clipped: number
}

export function speechFeatures(pcm: Int16Array, sampleRate: number): SpeechFeatures {
  const audible = 300
  let first = -1
  let last = -1
  let clipped = 0
  pcm.forEach((s, i) => {
    if (Math.abs(s) >= 32_700) clipped++
    if (Math.abs(s) < audible) return
    if (first < 0) first = i
    last = i
  })
  const frame = Math.round(sampleRate / 50)
  let energy = 0
  let frames = 0
  let peak = 0
  for (let start = 0; start + frame <= pcm.length; start += frame) {
    let e = 0
    for (let i = start; i < start + frame; i++) e += ((pcm[i] ?? 0) / 32768) ** 2
    peak = Math.max(peak, e / frame)
    // Frames under -34 dBFS are pauses and the quiet edges of consonants.
    if (e / frame < 4e-4) continue
    energy += e / frame
    frames++
  }
  const track = trackPitch(pcm, sampleRate)
  const pitch = summarizePitch(track)
  let peakF0 = 0
  for (let i = 2; i < track.length; i++) {
    peakF0 = Math.max(peakF0, Math.min(track[i - 2]?.hz ?? 0, track[i - 1]?.hz ?? 0, track[i]?.hz ?? 0))
  }
  return {
    activeSeconds: first < 0 ? 0 : (last - first) / sampleRate,
    loudnessDb: frames === 0 ? Number.NEGATIVE_INFINITY : 10 * Math.log10(energy / frames),
    peakDb: 10 * Math.log10(peak),
    medianF0: pitch.medianHz,
    peakF0: peakF0 || Number.NaN,
    rangeSemitones: pitch.rangeSemitones,
    clipped,
  }
}
