/** Names and messages the bench page shares with its two worklets (kept apart so the page never loads worklet code). */

export const REFERENCE_PROCESSOR = 'reference-pcm-player'
export const TAP_PROCESSOR = 'jitter-tap'

export type ToReference = { type: 'chunk'; pcm: Int16Array } | { type: 'end' }
/** `underruns`: times the queue ran out while more audio was due — the reference's own count. */
export type FromReference = { type: 'drained'; underruns: number }

export type ToTap = { type: 'arm'; maxFrames: number } | { type: 'dump' }
export type FromTap = { type: 'first-sample' } | { type: 'recording'; samples: Float32Array }
