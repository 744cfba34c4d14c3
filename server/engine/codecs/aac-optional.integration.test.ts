import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { AAC_UNAVAILABLE, loadAacDecoder } from './aac-decoder.ts'
import { decodeInThisThread } from './decode-core.ts'
import { AudioDecodeError } from './decode-error.ts'
import { FIXTURES, hasFfmpeg, makeFixture, scratchDir } from './decode-fixtures.ts'

// The optional GPL-2.0 AAC decoder left out, as by `npm ci --omit=optional`: its import fails as Node's does.
vi.mock('@audio/decode-aac', () => {
  throw Object.assign(new Error("Cannot find package '@audio/decode-aac'"), { code: 'ERR_MODULE_NOT_FOUND' })
})

describe('the loader seam', () => {
  it('turns a failed import into decoder_unavailable saying AAC is not supported here', async () => {
    const error = await loadAacDecoder().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AudioDecodeError)
    expect(error).toMatchObject({ code: 'decoder_unavailable', message: AAC_UNAVAILABLE })
    expect(AAC_UNAVAILABLE).toMatch(/^AAC is not supported on this server/)
  })
})

describe.skipIf(!hasFfmpeg)('decoding without the AAC decoder', () => {
  const scratch = hasFfmpeg ? scratchDir() : null
  const files = new Map<string, Uint8Array>()
  beforeAll(() => {
    for (const fixture of FIXTURES.filter((f) =>
      ['tone.aac', 'aac.m4a', 's16.wav', 'tone.mp3', 'tone.flac'].includes(f.name),
    ))
      files.set(fixture.name, makeFixture(scratch?.dir as string, fixture, 1))
  }, 60_000)
  afterAll(() => scratch?.remove())

  // ADTS goes through the decoder's own parser, AAC in MP4 through mediabunny's demuxer: both reach the one loader.
  it.each(['tone.aac', 'aac.m4a'])('refuses %s as not supported here, not as a broken file', async (name) => {
    const error = await decodeInThisThread(files.get(name) as Uint8Array, { maxDurationSeconds: 60 }).catch(
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ code: 'decoder_unavailable', message: AAC_UNAVAILABLE })
  })

  it('still decodes every other format', async () => {
    const decoded = [...files.keys()].filter((name) => !name.includes('aac'))
    expect(decoded.length).toBeGreaterThan(0)
    for (const name of decoded) {
      const audio = await decodeInThisThread(files.get(name) as Uint8Array, { maxDurationSeconds: 60 })
      expect(audio.durationSeconds).toBeGreaterThan(0.9)
    }
  })
})
