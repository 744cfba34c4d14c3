/**
 * Speeds outside eSpeak NG's 80–450 words per minute: eSpeak speaks at the nearest rate it has and the rest of the
 * tempo change is a time-stretch that keeps the pitch — SoundTouch's WSOLA (soundtouchjs), which cuts the audio into
 * overlapping pieces, finds where each lines up best with the last, and cross-fades them at the new spacing.
 */
import { Stretch } from 'soundtouchjs'
import { concat } from '../../core/concat.ts'
import { espeakRate } from './espeak/text.ts'

/**
 * The tempo factor still to apply after eSpeak has spoken at its clamped rate: 1 inside its range, above 1 for
 * speeds beyond 450 wpm, below 1 under 80 wpm.
 */
export function stretchTempo(baseRate: number, speed: number): number {
  const wanted = baseRate * speed
  const tempo = wanted / espeakRate(baseRate, speed)
  return Math.abs(tempo - 1) < 0.005 ? 1 : tempo
}

/** A streaming time-stretch of mono PCM16: push chunks as they come, flush once at the end. */
export class TimeStretcher {
  private readonly stretch = new Stretch(true)
  private input = 0
  private output = 0

  constructor(
    readonly tempo: number,
    sampleRate: number,
  ) {
    // Sequence and seek window follow the tempo (SoundTouch's automatic setting); 8 ms cross-fades.
    this.stretch.setParameters(sampleRate, 0, 0, 8)
    this.stretch.tempo = tempo
  }

  push(pcm: Int16Array): Int16Array {
    if (pcm.length === 0) return pcm
    // SoundTouchJS works on interleaved stereo floats: the voice goes to both channels.
    const stereo = new Float32Array(pcm.length * 2)
    for (let i = 0; i < pcm.length; i++) {
      const s = (pcm[i] ?? 0) / 32768
      stereo[2 * i] = s
      stereo[2 * i + 1] = s
    }
    this.input += pcm.length
    this.stretch.inputBuffer.putSamples(stereo, 0, pcm.length)
    this.stretch.process()
    return this.take(Number.POSITIVE_INFINITY)
  }

  /** Pushes silence through until every input sample has come out, then trims to the stretched length. */
  flush(): Int16Array {
    const expected = Math.round(this.input / this.tempo)
    const parts: Int16Array[] = []
    for (let round = 0; round < 8 && this.output < expected; round++) {
      this.stretch.inputBuffer.putSamples(new Float32Array(2 * 4096), 0, 4096)
      this.stretch.process()
      parts.push(this.take(expected - this.output))
    }
    this.stretch.clear()
    return concat(parts, Int16Array)
  }

  private take(limit: number): Int16Array {
    const frames = Math.min(this.stretch.outputBuffer.frameCount, limit)
    const stereo = new Float32Array(frames * 2)
    this.stretch.outputBuffer.receiveSamples(stereo, frames)
    if (limit !== Number.POSITIVE_INFINITY) this.stretch.outputBuffer.clear()
    const pcm = new Int16Array(frames)
    for (let i = 0; i < frames; i++) {
      pcm[i] = Math.max(-32768, Math.min(32767, Math.round((stereo[2 * i] ?? 0) * 32768)))
    }
    this.output += frames
    return pcm
  }
}
