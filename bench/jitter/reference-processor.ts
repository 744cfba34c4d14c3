/// <reference path="../../src/audio/worklet-globals.d.ts" />

/**
 * The reference player's worklet, built the way the common open-source realtime consoles build theirs (the
 * "pcm-player-processor" shape: e.g. the Google ADK streaming sample's worklet, a 24 kHz AudioContext with a ring
 * of Float32 samples, and the many copies of that shape): every render quantum takes whatever is queued and writes
 * zeros for the rest. There is no prebuffer, no resampling (the context runs at the stream's 24 kHz) and no fade, so
 * an empty queue mid-stream is heard as a hard cut to silence and a hard restart. Written for this benchmark from
 * that description, not copied.
 */

import { type FromReference, REFERENCE_PROCESSOR, type ToReference } from './protocol.ts'

class ReferenceProcessor extends AudioWorkletProcessor {
  private readonly queue: Float32Array[] = []
  /** Read position inside queue[0]. */
  private offset = 0
  private ended = false
  private started = false
  /** Whether the last quantum ended with the queue empty, so one gap counts once. */
  private dry = false
  private underruns = 0

  constructor(options: AudioWorkletNodeOptions) {
    super(options)
    this.port.onmessage = (event: MessageEvent<ToReference>) => {
      const message = event.data
      if (message.type === 'end') {
        this.ended = true
        return
      }
      // Int16 → float in the worklet, as those players do on receipt.
      const samples = new Float32Array(message.pcm.length)
      for (let i = 0; i < samples.length; i++) samples[i] = (message.pcm[i] ?? 0) / 32768
      this.queue.push(samples)
    }
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const out = outputs[0]?.[0]
    if (!out) return true
    let i = 0
    while (i < out.length && this.queue.length > 0) {
      const head = this.queue[0] as Float32Array
      const n = Math.min(out.length - i, head.length - this.offset)
      out.set(head.subarray(this.offset, this.offset + n), i)
      i += n
      this.offset += n
      if (this.offset === head.length) {
        this.queue.shift()
        this.offset = 0
      }
    }
    if (i > 0) {
      this.started = true
      this.dry = false
    }
    // Zeros for the rest: the quantum arrives already zeroed, so nothing to write.
    if (i < out.length && this.started) {
      if (this.ended) {
        this.port.postMessage({ type: 'drained', underruns: this.underruns } satisfies FromReference)
        return false
      }
      if (!this.dry) this.underruns++
      this.dry = true
    }
    return true
  }
}

registerProcessor(REFERENCE_PROCESSOR, ReferenceProcessor)
