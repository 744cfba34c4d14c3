import { StreamResampler } from '../../../engine/espeak/resampler.ts'

/** Realtime input audio: base64 PCM16 little-endian mono at 24 or 16 kHz in, 16 kHz float out (the engines' rate). */

export const ENGINE_RATE = 16_000

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** Decoded size of a base64 string without decoding it (the string must be valid base64). */
export function base64DecodedLength(b64: string): number {
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0
  return Math.floor((b64.length * 3) / 4) - padding
}

export function isBase64(b64: string): boolean {
  return b64.length % 4 === 0 && BASE64.test(b64)
}

/**
 * Turns appended bytes into 16 kHz float samples. An odd trailing byte waits for the next append, so a sample split
 * across two appends is kept. 24 kHz input goes through libsamplerate with its filter state carried across appends.
 */
export class PcmInput {
  private carry: number | null = null
  private resampler: StreamResampler | null = null

  private constructor(readonly rate: number) {}

  static async create(rate: number): Promise<PcmInput> {
    const input = new PcmInput(rate)
    if (rate !== ENGINE_RATE) input.resampler = await StreamResampler.create(rate, ENGINE_RATE)
    return input
  }

  push(bytes: Buffer): Float32Array {
    return this.convert(this.samples(bytes))
  }

  /** Samples already decoded (a call's media track). */
  pushSamples(samples: Int16Array): Float32Array {
    return this.convert(samples)
  }

  /** What the resampler still holds, at the end of the input (a rate change or a commit). */
  flush(): Float32Array {
    this.carry = null
    if (!this.resampler) return new Float32Array(0)
    return toFloat(this.resampler.flush())
  }

  close() {
    this.resampler?.close()
    this.resampler = null
  }

  private samples(bytes: Buffer): Int16Array {
    let data = bytes
    if (this.carry !== null) {
      data = Buffer.concat([Buffer.of(this.carry), bytes])
      this.carry = null
    }
    const whole = data.length & ~1
    if (whole < data.length) this.carry = data[data.length - 1] as number
    const out = new Int16Array(whole / 2)
    for (let i = 0; i < out.length; i++) out[i] = data.readInt16LE(i * 2)
    return out
  }

  private convert(samples: Int16Array): Float32Array {
    if (samples.length === 0) return new Float32Array(0)
    return toFloat(this.resampler ? this.resampler.push(samples) : samples)
  }
}

function toFloat(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length)
  for (let i = 0; i < samples.length; i++) out[i] = (samples[i] as number) / 32768
  return out
}
