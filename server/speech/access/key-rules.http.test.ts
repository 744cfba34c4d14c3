import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { voiceParamsFor } from '../../engine/index.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { speechTestDatabase } from '../../testing/speech-database.ts'
import { connectWs } from '../../testing/ws-client.ts'

/**
 * Who may do what with which key (docs/security.md): the keys CLI's permission list, ephemeral `ek_` keys that
 * expire and are deleted, and ephemeral keys refused a saved voice over HTTP as over the WebSocket (contract 5.4).
 */

const run = promisify(execFile)
const TSX = resolve('node_modules/.bin/tsx')

/** Data directories whose databases the tests made (PostgreSQL: a schema each, dropped at the end). */
const dataDirs = new Set<string>()

/** `npm run keys -- …` on `dataDir` and its test database (either backend): exit code and output. */
async function keysCli(dataDir: string, ...args: string[]) {
  dataDirs.add(dataDir)
  try {
    const { stdout, stderr } = await run(
      TSX,
      ['server/speech/access/keys-cli.ts', ...args, '--data', dataDir],
      {
        env: { ...process.env, ...speechTestDatabase(dataDir).env },
      },
    )
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/** The service on `dataDir` (kept for a restart or the CLI). */
function startOn(dataDir: string) {
  dataDirs.add(dataDir)
  return startSpeechService({ dataDir })
}

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'speech-keys-'))
})
afterAll(async () => {
  for (const data of dataDirs) await speechTestDatabase(data).drop()
  rmSync(dir, { recursive: true, force: true })
})

const speak = (svc: RunningService, key: string, voice: unknown) =>
  fetch(`${svc.baseUrl}/v1/audio/speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'svc-tts-2-latest', input: 'Hi.', voice, response_format: 'pcm' }),
  })

describe('npm run keys -- create --permissions', () => {
  it('refuses an empty permission list instead of granting every permission', async () => {
    const data = join(dir, 'cli-empty')
    const out = await keysCli(data, 'create', '--org', 'acme', '--permissions', '')
    expect(out.code).toBe(2)
    expect(out.stderr).toMatch(/no permission given/)
    expect(out.stdout).not.toMatch(/sk_/)
    const listed = await keysCli(data, 'list')
    expect(listed.stdout.trim()).toBe('')
  }, 30_000)

  it('grants exactly the permissions named, as the service sees them over HTTP', async () => {
    const data = join(dir, 'cli-named')
    const out = await keysCli(data, 'create', '--org', 'acme', '--permissions', 'audio:transcribe')
    expect(out.code).toBe(0)
    const key = out.stdout.trim().split('\n').at(-1) as string
    const svc = await startOn(data)
    try {
      const res = await speak(svc, key, 'eleanor_somber_female_32')
      expect(res.status).toBe(403)
      expect(await res.json()).toMatchObject({ error: { code: 'insufficient_permissions' } })
    } finally {
      await svc.close()
    }
  }, 30_000)
})

describe('expired ephemeral keys', () => {
  it('are deleted when another is minted, and at start-up', async () => {
    const data = join(dir, 'expiry')
    let svc = await startOn(data)
    const ephemeral = async () => (await svc.service.keys.list()).filter((k) => k.kind === 'ephemeral')
    try {
      const expired = await svc.service.keys.create({ kind: 'ephemeral', org: 'test-org', ttlSeconds: 0 })
      expect((await ephemeral()).map((k) => k.id)).toEqual([expired.id])
      const minted = await fetch(`${svc.baseUrl}/v1/realtime/client_secrets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
        body: '{}',
      })
      expect(minted.status).toBe(200)
      const live = await svc.service.keys.authenticate(((await minted.json()) as { value: string }).value)
      expect((await ephemeral()).map((k) => k.id)).toEqual([live?.keyId])

      await svc.service.keys.create({ kind: 'ephemeral', org: 'test-org', ttlSeconds: 0 })
      expect(await ephemeral()).toHaveLength(2)
    } finally {
      await svc.close()
    }
    svc = await startOn(data)
    try {
      expect(await ephemeral()).toHaveLength(1)
    } finally {
      await svc.close()
    }
    // Two service starts and a restart: slow on a loaded machine.
  }, 60_000)
})

describe('an ephemeral key and a saved voice', () => {
  let svc: RunningService
  let ek: string
  let voiceId: string

  beforeAll(async () => {
    svc = await startSpeechService()
    // What `npm run keys -- create --ephemeral --org test-org --permissions tts:generate` makes.
    ek = (
      await svc.service.keys.create({ kind: 'ephemeral', org: 'test-org', permissions: ['tts:generate'] })
    ).key
    const owner = (await svc.service.keys.authenticate(svc.apiKey))?.ownerId as string
    const voice = await svc.service.voices.store.createVoice(
      owner,
      {
        name: 'Narrator',
        consentId: null,
        language: 'en-US',
        preparedVersion: svc.service.voices.preparationVersion,
        params: voiceParamsFor('english_40') as NonNullable<ReturnType<typeof voiceParamsFor>>,
      },
      { audio: new Float32Array(16_000), embedding: null, embedderVersion: 'test' },
    )
    voiceId = voice?.id as string
  })
  afterAll(() => svc?.close())

  it('is refused over HTTP with 403 durable_api_key_required, like the text-input WebSocket', async () => {
    const http = await speak(svc, ek, { id: voiceId })
    expect(http.status).toBe(403)
    expect(await http.json()).toMatchObject({
      error: { code: 'durable_api_key_required', type: 'permission_error', param: 'voice' },
    })
    const ws = await connectWs(
      `${svc.baseUrl.replace('http', 'ws')}/v1/tts/realtime?model=svc-tts-2-latest&voice=${voiceId}`,
      ek,
    )
    expect(ws).toMatchObject({ status: 403, body: { error: { code: 'durable_api_key_required' } } })
  })

  it('gives the same answer for a voice id that does not exist, so it reveals nothing', async () => {
    const res = await speak(svc, ek, { id: `voice_${'0'.repeat(32)}` })
    expect(res.status).toBe(403)
  })

  it('still speaks built-in voices, and the durable key still speaks the saved voice', async () => {
    expect((await speak(svc, ek, 'eleanor_somber_female_32')).status).toBe(200)
    expect((await speak(svc, svc.apiKey, { id: voiceId })).status).toBe(200)
  })
})
