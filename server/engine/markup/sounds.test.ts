import { describe, expect, it } from 'vitest'
import { SOUND_TAGS } from '../../../schema/markup.ts'
import { type SoundFeatures, soundFeatures } from './features.ts'
import { synthesizeSound } from './sounds.ts'
import type { SoundTag } from './tags.ts'

const RATE = 24_000
/** A deep male, an ordinary and a high female speaking pitch. */
const PITCHES = [90, 150, 260]

const cache = new Map<number, Map<SoundTag, SoundFeatures>>()
/** Features of every sound at one voice pitch; analysed once, as the pitch tracker is the slow part. */
function featuresAt(pitchHz: number): Map<SoundTag, SoundFeatures> {
  let features = cache.get(pitchHz)
  if (!features) {
    features = new Map(
      SOUND_TAGS.map((tag) => [
        tag,
        soundFeatures(synthesizeSound(tag, { pitchHz, sampleRate: RATE }), RATE),
      ]),
    )
    cache.set(pitchHz, features)
  }
  return features
}

const ratio = (a: number, b: number) => Math.max(a, b) / Math.min(a, b)

/** The dimensions in which two sounds differ by clearly more than chance or a listener's threshold. */
function differences(a: SoundFeatures, b: SoundFeatures): string[] {
  const found: string[] = []
  if (ratio(a.seconds, b.seconds) >= 1.25) found.push('duration')
  if (ratio(a.rms + 1e-6, b.rms + 1e-6) >= 2) found.push('loudness')
  if (ratio(a.centroidHz, b.centroidHz) >= 1.3) found.push('brightness')
  if (ratio(a.zeroCrossings + 1, b.zeroCrossings + 1) >= 1.3) found.push('zero crossings')
  if (Math.abs(a.voicedShare - b.voicedShare) >= 0.25) found.push('voicing')
  if (a.voicedShare >= 0.3 && b.voicedShare >= 0.3 && ratio(a.medianF0, b.medianF0) >= 1.25)
    found.push('pitch')
  if (Math.abs(a.bursts - b.bursts) >= 2) found.push('bursts')
  return found
}

const tone = (hz: number) =>
  Int16Array.from({ length: RATE / 2 }, (_, i) => 10_000 * Math.sin((2 * Math.PI * hz * i) / RATE))

describe('synthesizeSound', () => {
  it('produces every sound of the contract', () => {
    for (const tag of SOUND_TAGS) {
      const pcm = synthesizeSound(tag, { pitchHz: 150, sampleRate: RATE })
      expect(pcm.length, tag).toBeGreaterThan(0.2 * RATE)
      expect(pcm.length, tag).toBeLessThan(1.5 * RATE)
    }
  })

  it('renders the same sound identically every time', () => {
    const once = synthesizeSound('laugh', { pitchHz: 150, sampleRate: RATE })
    expect(synthesizeSound('laugh', { pitchHz: 150, sampleRate: RATE })).toEqual(once)
  })

  it('makes a pause of silence and every other sound audible without clipping', () => {
    const pause = synthesizeSound('pause', { pitchHz: 150, sampleRate: RATE })
    expect(pause.length / RATE).toBeCloseTo(0.6, 2)
    expect(pause.every((s) => s === 0)).toBe(true)
    for (const tag of SOUND_TAGS.filter((t) => t !== 'pause')) {
      const pcm = synthesizeSound(tag, { pitchHz: 150, sampleRate: RATE })
      const peak = pcm.reduce((m, s) => Math.max(m, Math.abs(s)), 0) / 32768
      expect(peak, tag).toBeGreaterThan(0.25)
      expect(peak, tag).toBeLessThan(0.6)
      // Starts and ends at rest, so splicing it between speech cannot click.
      expect(Math.abs(pcm[0] ?? 1), tag).toBeLessThan(50)
      expect(Math.abs(pcm.at(-1) ?? 1), tag).toBeLessThan(50)
    }
  })

  it('tells a pure tone by its features, and no sound is one', () => {
    const sine = soundFeatures(tone(440), RATE)
    expect(sine.peakShare).toBeGreaterThan(0.99)
    expect(sine.spectralPeaks).toBe(1)
    expect(sine.flatness).toBeLessThan(1e-7)
    for (const pitchHz of PITCHES) {
      for (const [tag, f] of featuresAt(pitchHz)) {
        if (tag === 'pause') continue
        expect(f.peakShare, `${tag} at ${pitchHz} Hz`).toBeLessThan(0.9)
        expect(f.spectralPeaks, `${tag} at ${pitchHz} Hz`).toBeGreaterThanOrEqual(3)
        expect(f.flatness, `${tag} at ${pitchHz} Hz`).toBeGreaterThan(1e-6)
      }
    }
  })

  it('makes every pair of sounds measurably different, at low, middle and high voices', () => {
    for (const pitchHz of PITCHES) {
      const features = featuresAt(pitchHz)
      for (const [i, a] of SOUND_TAGS.entries()) {
        for (const b of SOUND_TAGS.slice(i + 1)) {
          const fa = features.get(a)
          const fb = features.get(b)
          if (!fa || !fb) throw new Error('missing features')
          expect(differences(fa, fb), `${a} vs ${b} at ${pitchHz} Hz`).not.toEqual([])
        }
      }
    }
  })

  it('gives each sound the character its name promises', () => {
    const f = featuresAt(150)
    const get = (tag: SoundTag) => {
      const found = f.get(tag)
      if (!found) throw new Error(tag)
      return found
    }
    // Laughs and giggles come in bursts, giggles quicker and higher.
    expect(get('laugh').bursts).toBeGreaterThanOrEqual(4)
    expect(get('giggle').bursts).toBeGreaterThan(get('laugh').bursts)
    expect(get('giggle').medianF0).toBeGreaterThan(get('laugh').medianF0 * 1.3)
    expect(get('giggle').seconds).toBeLessThan(get('laugh').seconds)
    // Sighs and gasps are breath, not voice; a sigh lasts, a gasp is short and bright.
    expect(get('sigh').voicedShare).toBeLessThan(0.1)
    expect(get('gasp').voicedShare).toBeLessThan(0.1)
    expect(get('sigh').seconds).toBeGreaterThan(0.7)
    expect(get('gasp').seconds).toBeLessThan(0.4)
    expect(get('gasp').centroidHz).toBeGreaterThan(get('sigh').centroidHz)
    // A sob breaks into several voiced bursts.
    expect(get('sob').bursts).toBeGreaterThanOrEqual(3)
    expect(get('sob').voicedShare).toBeGreaterThan(0.25)
    // A growl is low and rough; an "um" is a steady, clearly pitched hum near the voice's pitch.
    expect(get('growl').centroidHz).toBeLessThan(get('laugh').centroidHz)
    expect(get('growl').voicedShare).toBeLessThan(get('um').voicedShare - 0.5)
    expect(get('um').voicedShare).toBeGreaterThan(0.9)
    expect(get('um').medianF0).toBeGreaterThan(120)
    expect(get('um').medianF0).toBeLessThan(160)
    // Scoffs and gulps are short.
    expect(get('scoff').seconds).toBeLessThan(0.35)
    expect(get('gulp').seconds).toBeLessThan(0.4)
  })

  it('follows the voice: a higher voice laughs higher', () => {
    const low = soundFeatures(synthesizeSound('laugh', { pitchHz: 100, sampleRate: RATE }), RATE)
    const high = soundFeatures(synthesizeSound('laugh', { pitchHz: 220, sampleRate: RATE }), RATE)
    expect(high.medianF0 / low.medianF0).toBeGreaterThan(1.8)
  })
})
