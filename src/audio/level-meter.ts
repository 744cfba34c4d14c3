/**
 * A live input level for any MediaStream (a microphone, a tab, a file being played): peak and RMS of the latest
 * block of samples, in linear amplitude and dBFS. The pure measuring functions are separate for tests and for
 * pages that measure samples they already hold.
 */

export interface Level {
  /** Largest absolute sample, 0..1. */
  peak: number
  /** Root mean square, 0..1. */
  rms: number
  peakDb: number
  rmsDb: number
}

/** The level a meter falls to in silence. */
export const METER_FLOOR_DB = -60

export const SILENT: Level = { peak: 0, rms: 0, peakDb: METER_FLOOR_DB, rmsDb: METER_FLOOR_DB }

/** Amplitude to dBFS, never below `floorDb` (silence would be -Infinity). */
export function toDbfs(amplitude: number, floorDb = METER_FLOOR_DB): number {
  if (!(amplitude > 0)) return floorDb
  return Math.max(floorDb, 20 * Math.log10(amplitude))
}

export function measureLevel(samples: ArrayLike<number>, floorDb = METER_FLOOR_DB): Level {
  let peak = 0
  let sum = 0
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i] as number
    const a = Math.abs(s)
    if (a > peak) peak = a
    sum += s * s
  }
  const rms = samples.length > 0 ? Math.sqrt(sum / samples.length) : 0
  return { peak, rms, peakDb: toDbfs(peak, floorDb), rmsDb: toDbfs(rms, floorDb) }
}

/** Where a level sits on a meter from `floorDb` (0) to 0 dBFS (1). */
export function meterPosition(db: number, floorDb = METER_FLOOR_DB): number {
  return Math.min(1, Math.max(0, (db - floorDb) / -floorDb))
}

/** What a level means for someone recording speech, for the meter's text. */
export function describeLevel(level: Level): 'silent' | 'quiet' | 'good' | 'too loud' {
  if (level.peak >= 0.99) return 'too loud'
  if (level.rmsDb < -50) return 'silent'
  if (level.rmsDb < -35) return 'quiet'
  return 'good'
}

/**
 * Reads a MediaStream's level once per animation frame through an AnalyserNode. It only listens: nothing is sent
 * to the speakers.
 */
export class LevelMeter {
  private readonly source: MediaStreamAudioSourceNode
  private readonly analyser: AnalyserNode
  private readonly buffer: Float32Array<ArrayBuffer>
  private readonly listeners = new Set<(level: Level) => void>()
  private frame: number | null = null
  private ownsContext: boolean

  constructor(
    stream: MediaStream,
    private readonly context: AudioContext = new AudioContext(),
    ownsContext = true,
  ) {
    this.ownsContext = ownsContext
    this.source = context.createMediaStreamSource(stream)
    this.analyser = context.createAnalyser()
    this.analyser.fftSize = 2048
    this.buffer = new Float32Array(this.analyser.fftSize)
    this.source.connect(this.analyser)
    // A context made after an await may start suspended; the page was clicked, so it may run.
    if (context.state === 'suspended') void context.resume().catch(() => undefined)
  }

  /** The level of the latest ~43 ms (2048 samples at 48 kHz). */
  read(): Level {
    this.analyser.getFloatTimeDomainData(this.buffer)
    return measureLevel(this.buffer)
  }

  /** Calls `listener` with the level on every animation frame until the returned function is called. */
  subscribe(listener: (level: Level) => void): () => void {
    this.listeners.add(listener)
    if (this.frame === null) this.tick()
    return () => {
      this.listeners.delete(listener)
      if (this.listeners.size === 0 && this.frame !== null) {
        cancelAnimationFrame(this.frame)
        this.frame = null
      }
    }
  }

  private tick = () => {
    const level = this.read()
    for (const listener of this.listeners) listener(level)
    this.frame = requestAnimationFrame(this.tick)
  }

  async close(): Promise<void> {
    if (this.frame !== null) cancelAnimationFrame(this.frame)
    this.frame = null
    this.listeners.clear()
    this.source.disconnect()
    if (this.ownsContext && this.context.state !== 'closed') await this.context.close()
  }
}
