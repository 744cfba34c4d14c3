import type { FastifyRequest } from 'fastify'
import { formatBytes } from '../../core/bytes.ts'
import { ApiError, badRequest } from './errors.ts'

/**
 * Reads a whole multipart form whose fields are known in advance, with a size limit per file. Anything unexpected —
 * another content type, an unknown or repeated field, a file where text belongs, an oversize file — is refused in
 * the contract's `detail` shape before any work is done, so a route sees only a well-formed form.
 */
export interface FormSpec {
  /** Text fields the route accepts. */
  fields: readonly string[]
  /** File fields the route accepts, with each one's size limit in bytes. */
  files: Readonly<Record<string, number>>
}

export interface Form {
  fields: Record<string, string>
  files: Record<string, Buffer>
}

/** The largest text field we read; names, languages and transcripts are far shorter. */
const MAX_FIELD_BYTES = 64 * 1024

const MiB = 1024 * 1024

export async function readForm(request: FastifyRequest, spec: FormSpec): Promise<Form> {
  if (!request.isMultipart()) {
    throw new ApiError(415, 'detail', 'Send this request as multipart/form-data (not JSON).')
  }
  const fileNames = Object.keys(spec.files)
  const largest = Math.max(...Object.values(spec.files))
  const form: Form = { fields: {}, files: {} }
  const seen = new Set<string>()
  try {
    const parts = request.parts({
      limits: {
        fileSize: largest,
        files: fileNames.length,
        fields: spec.fields.length,
        fieldSize: MAX_FIELD_BYTES,
      },
    })
    for await (const part of parts) {
      const name = part.fieldname
      if (seen.has(name)) throw badRequest(`The field ${name} was sent more than once.`, name)
      seen.add(name)
      if (part.type === 'file') {
        const limit = spec.files[name]
        if (limit === undefined) {
          throw badRequest(
            spec.fields.includes(name)
              ? `${name} must be a text field, not a file.`
              : `Unknown field ${name}. Accepted: ${[...spec.fields, ...fileNames].join(', ')}.`,
            name,
          )
        }
        const bytes = await part.toBuffer()
        if (bytes.byteLength > limit) throw tooLarge(name, limit)
        form.files[name] = bytes
      } else {
        if (!spec.fields.includes(name)) {
          throw badRequest(
            fileNames.includes(name)
              ? `${name} must be a file.`
              : `Unknown field ${name}. Accepted: ${[...spec.fields, ...fileNames].join(', ')}.`,
            name,
          )
        }
        if (part.valueTruncated) throw badRequest(`${name} is longer than ${MAX_FIELD_BYTES} bytes.`, name)
        form.fields[name] = String(part.value)
      }
    }
  } catch (err) {
    discardRest(request)
    throw translate(err, spec, seen)
  }
  return form
}

/** How much of a refused body we read and drop so that the client, still sending, receives the error cleanly. */
const MAX_DISCARD_BYTES = 16 * MiB

/**
 * Leaving a refused body half-read stalls the connection: the multipart parser stops pulling once the route stops
 * iterating, and the client's upload never finishes. The rest is read and dropped instead; a body that goes on past
 * the bound is cut off with the connection.
 */
export function discardRest(request: FastifyRequest): void {
  const raw = request.raw
  if (raw.readableEnded) return
  let discarded = 0
  raw.unpipe()
  raw.on('data', (chunk: Buffer) => {
    discarded += chunk.byteLength
    if (discarded > MAX_DISCARD_BYTES) raw.destroy()
  })
  raw.resume()
}

function tooLarge(name: string, limit: number): ApiError {
  return new ApiError(413, 'detail', `${name} is larger than ${formatBytes(limit)}.`, null, name)
}

/** @fastify/multipart's and busboy's errors, in the contract's shape. */
function translate(err: unknown, spec: FormSpec, seen: Set<string>): ApiError {
  if (err instanceof ApiError) return err
  const code = (err as { code?: string }).code
  const last = [...seen].at(-1) ?? null
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return tooLarge(last ?? 'file', last ? (spec.files[last] ?? 0) : 0)
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return badRequest(
        `Too many fields. Accepted: ${[...spec.fields, ...Object.keys(spec.files)].join(', ')}, each once.`,
      )
    case 'FST_MP_PREMATURE_CLOSE':
      return badRequest('The multipart body ended early.')
    case 'FST_PROTO_VIOLATION':
      return badRequest('Invalid field name.')
  }
  return malformedMultipart(err)
}

/**
 * Any other failure while a form is read comes from the client's bytes — busboy's parse errors ("Unexpected end of
 * multipart data", "Malformed part header", a missing boundary: plain errors without a code), a body cut short, a
 * part's invalid JSON — so it is the client's 400, never a 500.
 */
export function malformedMultipart(err: unknown): ApiError {
  if (err instanceof ApiError) return err
  const reason = err instanceof Error && err.message ? ` (${err.message})` : ''
  return badRequest(`The multipart body is malformed or incomplete${reason}.`)
}
