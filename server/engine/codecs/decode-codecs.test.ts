import { describe, expect, it, vi } from 'vitest'
import { decodeInThisThread } from './decode-core.ts'
import { AudioDecodeError } from './decode-error.ts'

// The MP3 decoder's package failing to load, as on a machine where its install broke.
vi.mock('mpg123-decoder', () => {
  throw new Error('no such package')
})

/** Frames with valid MPEG-1 layer III headers (128 kbit/s, 44.1 kHz) and silent bodies: enough to demux. */
function mp3Frames(count: number): Uint8Array {
  const frame = new Uint8Array(417)
  frame.set([0xff, 0xfb, 0x90, 0x44])
  const bytes = new Uint8Array(frame.length * count)
  for (let i = 0; i < count; i++) bytes.set(frame, i * frame.length)
  return bytes
}

describe('a codec whose decoder cannot be loaded', () => {
  it('fails with decoder_unavailable, not as a broken file', async () => {
    const error = await decodeInThisThread(mp3Frames(20), { maxDurationSeconds: 60 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AudioDecodeError)
    expect(error).toMatchObject({
      code: 'decoder_unavailable',
      message: 'The mp3 decoder could not be loaded',
    })
  })
})
