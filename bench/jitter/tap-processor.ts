/// <reference path="../../src/audio/worklet-globals.d.ts" />

/**
 * The output tap: a worklet fed by a player's node (beside its connection to the speakers) that records the first
 * channel exactly as rendered, so underruns, silence and clicks are counted from what would be heard rather than from
 * the player's own bookkeeping. It posts once when the first non-zero sample passes, so the main thread can stamp it.
 */

import { type FromTap, TAP_PROCESSOR, type ToTap } from './protocol.ts'

class TapProcessor extends AudioWorkletProcessor {
  private recording = new Float32Array(0)
  private length = 0
  private heard = false

  constructor(options: AudioWorkletNodeOptions) {
    super(options)
    this.port.onmessage = (event: MessageEvent<ToTap>) => {
      const message = event.data
      if (message.type === 'arm') {
        this.recording = new Float32Array(message.maxFrames)
        this.length = 0
        this.heard = false
        return
      }
      const samples = this.recording.slice(0, this.length)
      this.port.postMessage({ type: 'recording', samples } satisfies FromTap, [samples.buffer])
    }
  }

  process(inputs: Float32Array[][]): boolean {
    // An input with no active source has no channels: that is silence, 128 frames of it.
    const input = inputs[0]?.[0]
    const frames = input?.length ?? 128
    const room = Math.min(frames, this.recording.length - this.length)
    if (input && room > 0) this.recording.set(input.subarray(0, room), this.length)
    if (room > 0) this.length += room
    if (!this.heard && input?.some((s) => s !== 0)) {
      this.heard = true
      this.port.postMessage({ type: 'first-sample' } satisfies FromTap)
    }
    return true
  }
}

registerProcessor(TAP_PROCESSOR, TapProcessor)
