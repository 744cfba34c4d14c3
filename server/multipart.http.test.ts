import multipart from '@fastify/multipart'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FormRefusal, type FormSpec, readMultipart } from './multipart.ts'

/**
 * The one multipart reader both servers use, on a real Fastify server: what it hands a route, and each refusal with
 * its status and the part it names. The servers' own suites (speech hardening and fuzz, studio refusals and fuzz)
 * prove the same refusals in their two error languages.
 */
const SPECS: Record<string, FormSpec> = {
  strict: { fields: ['name', 'note'], files: { audio: 1000 }, maxFieldBytes: 64 },
  any: { fields: 'any', files: { file: 1000 }, maxFields: 4 },
}

let app: FastifyInstance
let base: string

beforeAll(async () => {
  app = Fastify()
  for (const [name, spec] of Object.entries(SPECS)) {
    // One scope throws at a file's limit, the other truncates: the reader refuses both alike.
    await app.register(async (scope) => {
      await scope.register(multipart, { throwFileSizeLimit: name === 'strict' })
      scope.setErrorHandler((error, _request, reply) =>
        error instanceof FormRefusal
          ? reply.code(error.status).send({ message: error.message, param: error.param })
          : reply.code(500).send({ message: (error as Error).message }),
      )
      scope.post(`/${name}`, async (request) => {
        const form = await readMultipart(request, spec)
        const files = Object.fromEntries(
          Object.entries(form.files).map(([k, f]) => [k, { bytes: f.bytes.length, filename: f.filename }]),
        )
        return { fields: form.fields, entries: form.entries, files }
      })
    })
  }
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  base = `http://127.0.0.1:${address.port}`
})
afterAll(() => app.close())

function form(parts: Array<[string, string | Blob]>): FormData {
  const data = new FormData()
  for (const [name, value] of parts) data.append(name, value)
  return data
}

const bytes = (n: number) => new Blob([new Uint8Array(n)])

async function post(path: string, body: FormData | string, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, { method: 'POST', body, headers })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

describe('readMultipart', () => {
  it('hands the route the fields, in order, and each file with its name', async () => {
    const res = await post(
      '/strict',
      form([
        ['name', 'Ada'],
        ['audio', new File([new Uint8Array(10)], 'a.wav')],
        ['note', 'hi'],
      ]),
    )
    expect(res).toEqual({
      status: 200,
      body: {
        fields: { name: 'Ada', note: 'hi' },
        entries: [
          ['name', 'Ada'],
          ['note', 'hi'],
        ],
        files: { audio: { bytes: 10, filename: 'a.wav' } },
      },
    })
  })

  it("with fields: 'any', keeps every text field and its repeats for the route to check", async () => {
    const res = await post(
      '/any',
      form([
        ['a[]', '1'],
        ['a[]', '2'],
        ['b', 'x'],
        ['file', bytes(3)],
      ]),
    )
    expect(res.status).toBe(200)
    expect(res.body.entries).toEqual([
      ['a[]', '1'],
      ['a[]', '2'],
      ['b', 'x'],
    ])
  })

  it.each([
    [
      'an unknown field, named',
      form([['voice', 'x']]),
      400,
      'voice',
      /^Unknown field voice\. Accepted: name, note, audio\.$/,
    ],
    [
      'a repeated field',
      form([
        ['name', 'a'],
        ['name', 'b'],
      ]),
      400,
      'name',
      /more than once/,
    ],
    ['a file where text belongs', form([['name', bytes(3)]]), 400, 'name', /must be a text field/],
    ['text where a file belongs', form([['audio', 'x']]), 400, 'audio', /must be a file/],
    [
      'a field over its limit',
      form([['note', 'x'.repeat(65)]]),
      400,
      'note',
      /^note is longer than 64 bytes\.$/,
    ],
    ['a file over its limit (thrown)', form([['audio', bytes(1001)]]), 413, 'audio', /larger than/],
  ])('refuses %s', async (_what, body, status, param, message) => {
    const res = await post('/strict', body)
    expect(res.status).toBe(status)
    expect(res.body.param).toBe(param)
    expect(res.body.message).toMatch(message)
  })

  it('refuses a file over its limit in a scope that truncates instead of throwing', async () => {
    const res = await post('/any', form([['file', bytes(1001)]]))
    expect(res).toEqual({ status: 413, body: { message: 'file is larger than 1000 bytes.', param: 'file' } })
  })

  it('refuses more fields than allowed, another content type, and a body cut short', async () => {
    const many = form([
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
      ['d', '4'],
      ['e', '5'],
    ])
    expect((await post('/any', many)).status).toBe(400)
    const json = await post('/strict', JSON.stringify({ name: 'x' }), { 'content-type': 'application/json' })
    expect(json.status).toBe(415)
    expect(json.body.message).toMatch(/multipart\/form-data \(the fields name, note, audio\)/)
    const cut = '--zz\r\ncontent-disposition: form-data; name="name"\r\n\r\nAda'
    const truncated = await post('/strict', cut, { 'content-type': 'multipart/form-data; boundary=zz' })
    expect(truncated.status).toBe(400)
    expect(truncated.body.message).toMatch(/malformed or incomplete|ended early/)
  })

  it('reads a refused body to its end, so the next request on the connection is answered', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await post(
        '/strict',
        form([
          ['voice', 'x'],
          ['audio', bytes(900)],
          ['name', 'y'.repeat(60)],
        ]),
      )
      expect(res.status).toBe(400)
    }
    expect((await post('/strict', form([['name', 'ok']]))).status).toBe(200)
  })
})
