import { CONTENT_TYPES, type ResponseFormat } from '../../schema/index.ts'

/**
 * Files of the six response formats (contract 2.6) made in the browser from 24 kHz mono PCM16, for downloads of takes.
 * Raw PCM is the samples' bytes; every container comes from encode-mediabunny.ts, loaded with `import()` on the
 * first download, so none of it weighs on the page's first load.
 */

export { EncoderUnavailableError } from './encoder-error.ts'

/** `.opus` is the usual name of an Ogg Opus file (RFC 7845); raw PCM has no standard one. */
export const FILE_EXTENSIONS: Record<ResponseFormat, string> = {
  mp3: 'mp3',
  wav: 'wav',
  flac: 'flac',
  aac: 'aac',
  opus: 'opus',
  pcm: 'pcm',
}

/** `base` with the format's extension, replacing an audio extension it already has. */
export function fileNameFor(base: string, format: ResponseFormat): string {
  const stem = base.trim().replace(/\.(mp3|wav|flac|aac|opus|ogg|pcm)$/i, '') || 'speech'
  return `${stem}.${FILE_EXTENSIONS[format]}`
}

/** Encodes the whole of `pcm` (24 kHz mono) as a file of `format`, typed with the service's content type. */
export async function encodePcm(pcm: Int16Array, format: ResponseFormat): Promise<Blob> {
  const type = CONTENT_TYPES[format]
  // Every platform a browser runs on is little-endian, so the samples' bytes already are the format.
  if (format === 'pcm') return new Blob([pcm.slice().buffer], { type })
  if (pcm.length === 0) throw new RangeError('There is no audio to encode.')
  const { encodeContainer } = await import('./encode-mediabunny.ts')
  return new Blob([await encodeContainer(pcm, format)], { type })
}
