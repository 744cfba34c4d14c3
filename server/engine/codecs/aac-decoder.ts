/**
 * The AAC decoder, `@audio/decode-aac` (FAAD2), is GPL-2.0 and so an optional dependency (docs/dependencies.md): a
 * deployment may install without it (`npm ci --omit=optional`). This is the one place it is loaded, for both ADTS
 * files (decode-whole.ts) and AAC inside MP4 or Matroska (decode-codecs.ts), so that its absence gives one clear
 * answer: AAC uploads are refused as not supported here, and every other format decodes as before.
 */
import { AudioDecodeError } from './decode-error.ts'

type AacModule = typeof import('@audio/decode-aac')

export const AAC_UNAVAILABLE =
  'AAC is not supported on this server: its decoder, the optional package @audio/decode-aac (FAAD2, GPL-2.0), is not installed'

/** The package, or `decoder_unavailable` saying AAC is not supported here. */
export async function loadAacDecoder(importer: () => Promise<AacModule> = () => import('@audio/decode-aac')) {
  try {
    return await importer()
  } catch (error) {
    throw new AudioDecodeError('decoder_unavailable', AAC_UNAVAILABLE, { cause: error })
  }
}
