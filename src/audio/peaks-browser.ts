import { PeakAccumulator, peakCountFor, peaksOfWav } from './peaks.ts'

/**
 * Peaks of a recording in the browser: WAV straight from its bytes, anything else decoded by the browser at a low
 * sample rate (enough for an envelope; about 20 million samples at most, so a long recording stays within memory).
 * `duration` (from the transcript) picks that rate; without it 8 kHz is used.
 */
export async function peaksOfBlob(
  blob: Blob,
  duration?: number | null,
): Promise<{ data: number[]; duration: number }> {
  const bytes = await blob.arrayBuffer()
  const wav = peaksOfWav(bytes)
  if (wav) return wav
  const rate =
    duration && duration > 0 ? Math.max(3000, Math.min(16_000, Math.floor(20_000_000 / duration))) : 8000
  const context = new OfflineAudioContext(1, 1, rate)
  const decoded = await context.decodeAudioData(bytes)
  const frames = decoded.length
  const acc = new PeakAccumulator(frames, peakCountFor(decoded.duration))
  const channels = Array.from({ length: decoded.numberOfChannels }, (_, c) => decoded.getChannelData(c))
  if (channels.length === 1) acc.add(channels[0] as Float32Array)
  else {
    const loudest = new Float32Array(frames)
    for (const data of channels)
      for (let i = 0; i < frames; i++)
        loudest[i] = Math.max(loudest[i] as number, Math.abs(data[i] as number))
    acc.add(loudest)
  }
  return { data: acc.finish(), duration: decoded.duration }
}
