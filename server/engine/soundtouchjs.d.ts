/** The part of SoundTouchJS (LGPL-2.1) the time-stretch uses; the package ships no types. */
declare module 'soundtouchjs' {
  export interface FifoSampleBuffer {
    /** Interleaved stereo frames waiting in the buffer. */
    readonly frameCount: number
    putSamples(samples: Float32Array, position?: number, numFrames?: number): void
    receiveSamples(output: Float32Array, numFrames?: number): void
    clear(): void
  }

  /** SoundTouch's WSOLA time-stretch: tempo above 1 shortens, below 1 lengthens, the pitch stays. */
  export class Stretch {
    constructor(createBuffers: boolean)
    tempo: number
    readonly inputBuffer: FifoSampleBuffer
    readonly outputBuffer: FifoSampleBuffer
    /** Sequence, seek window and overlap in milliseconds; 0 picks the first two from the tempo. */
    setParameters(sampleRate: number, sequenceMs: number, seekWindowMs: number, overlapMs: number): void
    process(): void
    clear(): void
  }
}
