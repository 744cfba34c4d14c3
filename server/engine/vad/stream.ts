/**
 * Streaming voice activity detection for realtime turn taking: push 16 kHz audio as it arrives, in pieces of any
 * length, and get speech start and end events with their times from the start of the stream.
 */
import { type GateOptions, SpeechGate, type VadEvent } from './gate.ts'
import { SileroStream, VAD_CHUNK, VAD_CHUNK_SECONDS, VAD_SAMPLE_RATE } from './silero.ts'

export interface StreamingVad {
  /** Audio that follows what was pushed before; resolves with the events it completes, in order. */
  push(samples: Float32Array): Promise<VadEvent[]>
  /** The stream ended: the unfinished chunk is judged and speech still open is closed. */
  flush(): Promise<VadEvent[]>
}

/**
 * A turn ends after `minSilenceSeconds` of silence (default 0.5 s: a pause inside a sentence is shorter).
 * Calls may overlap: each waits for the one before it.
 */
export async function createStreamingVad(opts: GateOptions = {}): Promise<StreamingVad> {
  const model = await SileroStream.open()
  const gate = new SpeechGate({ minSilenceSeconds: 0.5, ...opts })
  const pending = new Float32Array(VAD_CHUNK)
  let filled = 0
  let chunks = 0
  let queue: Promise<unknown> = Promise.resolve()

  async function judge(): Promise<VadEvent[]> {
    const probability = await model.probability(pending)
    const start = chunks * VAD_CHUNK_SECONDS
    chunks++
    filled = 0
    return gate.push(probability, start, start + VAD_CHUNK_SECONDS)
  }

  function serialize(work: () => Promise<VadEvent[]>): Promise<VadEvent[]> {
    const result = queue.then(work)
    queue = result.catch(() => undefined)
    return result
  }

  return {
    push: (samples) =>
      serialize(async () => {
        const events: VadEvent[] = []
        for (let offset = 0; offset < samples.length; ) {
          const take = Math.min(VAD_CHUNK - filled, samples.length - offset)
          pending.set(samples.subarray(offset, offset + take), filled)
          filled += take
          offset += take
          if (filled === VAD_CHUNK) events.push(...(await judge()))
        }
        return events
      }),
    flush: () =>
      serialize(async () => {
        const heard = chunks * VAD_CHUNK_SECONDS + filled / VAD_SAMPLE_RATE
        const events: VadEvent[] = []
        if (filled > 0) {
          pending.fill(0, filled)
          events.push(...(await judge()))
        }
        return [...events, ...gate.finish(heard)]
      }),
  }
}
