/**
 * Why an upload could not be decoded. The service maps the code to its HTTP error:
 * - `unsupported_format`: the bytes are none of the accepted formats, or carry a codec we do not decode;
 * - `corrupt_audio`: the format is known but the data is broken, truncated or holds no audio;
 * - `decoder_unavailable`: the format is fine but its decoder could not be loaded on this machine;
 * - `too_long`: the audio lasts longer than the caller allows (a small compressed file can expand to gigabytes).
 */
export type AudioDecodeErrorCode = 'unsupported_format' | 'corrupt_audio' | 'decoder_unavailable' | 'too_long'

export class AudioDecodeError extends Error {
  override readonly name = 'AudioDecodeError'

  constructor(
    readonly code: AudioDecodeErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}
