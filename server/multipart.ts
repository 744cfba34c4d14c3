import type { FastifyRequest } from 'fastify'
import { formatBytes } from '../core/bytes.ts'

/**
 * The one reader of multipart forms, for both servers: a whole form whose parts are known in advance, each file
 * within its own size limit. Anything else — another content type, an unknown or repeated part, a file where text
 * belongs, an oversize part, a body cut short or malformed — is a `FormRefusal`, which each server answers in its
 * own error language (server/speech/errors.ts, server/studio/errors.ts), before any work is done.
 */
export interface FormSpec {
  /**
   * The text fields accepted, each once; or `'any'`: every text field goes to the route in order, repeats included,
   * for a route whose contract names and orders its own checks (transcription options).
   */
  fields: readonly string[] | 'any'
  /** The file fields accepted, each once, with each one's size limit in bytes. */
  files: Readonly<Record<string, number>>
  /** The longest text field, in bytes (64 KiB unless said). */
  maxFieldBytes?: number
  /** With `fields: 'any'`, how many text fields at most (32 unless said). */
  maxFields?: number
}

export interface FormFile {
  bytes: Buffer
  /** The name the client gave the file ('' when none). */
  filename: string
  /** Its declared media type ('' when none). */
  mimetype: string
}

export interface Form {
  /** Text fields by name (the last, when repeats are allowed). */
  fields: Record<string, string>
  /** Every text field in the order sent. */
  entries: Array<[string, string]>
  files: Record<string, FormFile>
}

/** Why a form was refused: 415 not multipart, 413 a part over its limit, 400 anything else of the client's bytes. */
export class FormRefusal extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
    /** The part it is about, when it is one. */
    readonly param: string | null = null,
  ) {
    super(message)
  }
}

const DEFAULT_FIELD_BYTES = 64 * 1024
const DEFAULT_ANY_FIELDS = 32
const EXTRA_PARTS = 2

export async function readMultipart(request: FastifyRequest, spec: FormSpec): Promise<Form> {
  if (!request.isMultipart()) {
    discardRest(request)
    throw new FormRefusal(415, `Send this request as multipart/form-data (${accepted(spec)}).`)
  }
  const fileNames = Object.keys(spec.files)
  const maxFieldBytes = spec.maxFieldBytes ?? DEFAULT_FIELD_BYTES
  const form: Form = { fields: {}, entries: [], files: {} }
  const seen = new Set<string>()
  let last: string | null = null
  try {
    const parts = request.parts({
      limits: {
        fileSize: Math.max(0, ...Object.values(spec.files)),
        // A few parts past the spec's, so that an unknown or repeated one is refused by its name.
        files: fileNames.length + EXTRA_PARTS,
        fields:
          spec.fields === 'any' ? (spec.maxFields ?? DEFAULT_ANY_FIELDS) : spec.fields.length + EXTRA_PARTS,
        fieldSize: maxFieldBytes,
      },
    })
    for await (const part of parts) {
      const name = part.fieldname
      last = name
      if (part.type === 'file') {
        const limit = spec.files[name]
        if (limit === undefined) {
          if (spec.fields === 'any')
            throw refused(`${name} is not a file field; send the file as ${fileNames.join(' or ')}.`, name)
          const textField = spec.fields.includes(name)
          throw refused(textField ? `${name} must be a text field, not a file.` : unknown(name, spec), name)
        }
        if (seen.has(name)) throw refused(`The field ${name} was sent more than once.`, name)
        seen.add(name)
        const bytes = await part.toBuffer()
        // A scope registered without throwFileSizeLimit truncates instead of throwing.
        if (part.file.truncated || bytes.byteLength > limit) throw tooLarge(name, limit)
        form.files[name] = { bytes, filename: part.filename ?? '', mimetype: part.mimetype ?? '' }
        continue
      }
      if (spec.fields !== 'any') {
        if (!spec.fields.includes(name))
          throw refused(fileNames.includes(name) ? `${name} must be a file.` : unknown(name, spec), name)
        if (seen.has(name)) throw refused(`The field ${name} was sent more than once.`, name)
      }
      seen.add(name)
      if (part.valueTruncated) throw tooLong(name, maxFieldBytes)
      // A part sent as application/json arrives parsed; the route reads text.
      const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value)
      form.fields[name] = value
      form.entries.push([name, value])
    }
  } catch (err) {
    discardRest(request)
    throw translate(err, spec, last, maxFieldBytes)
  }
  return form
}

const refused = (message: string, param: string | null = null) => new FormRefusal(400, message, param)

/** The parts a spec names, text fields first. */
const partNames = (spec: FormSpec) => [
  ...(spec.fields === 'any' ? [] : spec.fields),
  ...Object.keys(spec.files),
]

function accepted(spec: FormSpec): string {
  const names = partNames(spec)
  return names.length > 0 ? `the fields ${names.join(', ')}` : 'its fields'
}

const unknown = (name: string, spec: FormSpec) =>
  `Unknown field ${name}. Accepted: ${partNames(spec).join(', ')}.`

function tooLarge(name: string, limit: number): FormRefusal {
  return new FormRefusal(413, `${name} is larger than ${formatBytes(limit)}.`, name)
}

const tooLong = (name: string, limit: number) =>
  refused(`${name} is longer than ${formatBytes(limit)}.`, name)

/** How much of a refused body is read and dropped so that the client, still sending, receives the error cleanly. */
const MAX_DISCARD_BYTES = 16 * 1024 * 1024

/**
 * Leaving a refused body half-read stalls the connection: the multipart parser stops pulling once the route stops
 * iterating, and the client's upload never finishes. The rest is read and dropped instead; a body that goes on past
 * the bound is cut off with the connection.
 */
function discardRest(request: FastifyRequest): void {
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

/** @fastify/multipart's and busboy's errors as refusals: every failure while a form is read is the client's bytes. */
function translate(err: unknown, spec: FormSpec, last: string | null, maxFieldBytes: number): FormRefusal {
  if (err instanceof FormRefusal) return err
  const code = (err as { code?: string }).code
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return tooLarge(last ?? 'file', last ? (spec.files[last] ?? 0) : 0)
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return refused(`Too many fields. Send ${accepted(spec)}, each once.`)
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return refused(
        `A field sent as application/json is not JSON (or is longer than ${formatBytes(maxFieldBytes)}).`,
      )
    case 'FST_MP_PREMATURE_CLOSE':
      return refused('The multipart body ended early.')
    case 'FST_PROTO_VIOLATION':
      return refused('Invalid field name.')
  }
  // busboy's parse errors ("Unexpected end of form", "Malformed part header", no boundary) carry no code.
  const reason = err instanceof Error && err.message ? ` (${err.message})` : ''
  return refused(`The multipart body is malformed or incomplete${reason}.`)
}
