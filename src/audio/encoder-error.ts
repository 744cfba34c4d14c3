import type { ResponseFormat } from '../../schema/index.ts'

/** A format this browser cannot encode. Its own module, so the lazily loaded encoders need not import their loader. */
export class EncoderUnavailableError extends Error {
  constructor(readonly format: ResponseFormat) {
    super(`This browser cannot encode ${format}; choose another format.`)
    this.name = 'EncoderUnavailableError'
  }
}
