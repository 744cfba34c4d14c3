import { Readable } from 'node:stream'
import type { FastifyRequest } from 'fastify'

/** JSON bodies up to this size are held in memory so a refused attempt can be sent again (speech requests are ~1 KB). */
export const REPLAYABLE_JSON_BYTES = 256 * 1024

/** Thrown when the client's body ends before its declared length: the client is gone or broken, not the server. */
export class TruncatedBodyError extends Error {
  readonly statusCode = 400
  constructor() {
    super('The request body was cut short.')
  }
}

const isJson = (contentType: string | undefined) =>
  (contentType ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json'

/**
 * The proxy hands request bodies upstream as the incoming stream, which can be sent once: a 429 or 503 could then
 * never be retried (retry.ts), and the backend's documented retry silently did not apply to speech requests. A small
 * JSON body with a declared length is read here instead. A JSON object is handed on parsed (the proxy sends it
 * re-serialized, which means the same to any JSON parser, and can send it again); anything else goes on as the same
 * bytes in a one-shot stream, so the service still judges malformed bodies and answers in its own shapes.
 */
export async function bufferSmallJson(request: FastifyRequest): Promise<void> {
  const body = request.body
  if (!(body instanceof Readable) || !isJson(request.headers['content-type'])) return
  const declared = Number(request.headers['content-length'])
  if (!Number.isInteger(declared) || declared < 0 || declared > REPLAYABLE_JSON_BYTES) return
  const chunks: Buffer[] = []
  let length = 0
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Buffer)
      length += (chunk as Buffer).length
    }
  } catch {
    throw new TruncatedBodyError()
  }
  if (length !== declared) throw new TruncatedBodyError()
  const bytes = Buffer.concat(chunks, length)
  let parsed: unknown
  try {
    parsed = JSON.parse(bytes.toString('utf8'))
  } catch {
    parsed = undefined
  }
  request.body =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : Readable.from([bytes])
}
