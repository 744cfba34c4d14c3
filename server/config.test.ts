import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  ConfigError,
  DEFAULT_SPEECH_PORT,
  DEFAULT_STUDIO_PORT,
  environmentSchema,
  loadConfig,
} from './config.ts'

const KEY_A = Buffer.alloc(32, 1).toString('base64')
const KEY_B = Buffer.alloc(32, 2).toString('base64')

describe('the configuration', () => {
  it('has a default for everything unset, or set empty', () => {
    for (const env of [{}, { PORT: '', SPEECH_DIARIZATION: ' ', SPEECH_WEBRTC_PORTS: '' }]) {
      const config = loadConfig(env)
      expect(config.dataDir).toBe(resolve('data'))
      expect(config.studio).toMatchObject({
        host: '127.0.0.1',
        port: DEFAULT_STUDIO_PORT,
        consentLinkHours: 72,
        upstream: undefined,
      })
      expect(config.speech).toMatchObject({
        port: DEFAULT_SPEECH_PORT,
        limits: { redirectWhenBusy: false },
        sharedLimits: undefined,
        transcriptionWorkers: 2,
        diarizationEnabled: true,
        callNetwork: {},
        recognition: { streaming: true },
      })
    }
  })

  it('takes each setting from its variable', () => {
    const config = loadConfig({
      DATA_DIR: '/srv/studio',
      PORT: '9000',
      STUDIO_CONSENT_LINK_HOURS: '24',
      SPEECH_PORT: '0',
      SVC_BASE_URL: 'https://speech.example.org',
      SVC_API_KEY: 'sk_test',
      REDIS_URL: 'redis://cache:6379',
      SPEECH_LEASE_TTL_MS: '2000',
      SPEECH_REDIRECT_WHEN_BUSY: '1',
      SPEECH_VERIFICATION_THRESHOLD: '-0.25',
      SPEECH_DIARIZATION: 'off',
      SPEECH_TRANSCRIPTION_WORKERS: '0',
      SPEECH_WEBRTC_ADDRESSES: '192.0.2.7, ::1',
      SPEECH_WEBRTC_PORTS: '50000-50099',
      POCKETSPHINX_MODEL_DIR: '/opt/model',
      POCKETSPHINX_STREAMING: 'off',
      SPEECH_MASTER_KEY: KEY_A,
      SPEECH_MASTER_KEY_PREVIOUS: `${KEY_B}, ${KEY_A}`,
      STUDIO_MASTER_KEY: KEY_B,
      STUDIO_MASTER_KEY_PREVIOUS: KEY_A,
    })
    expect(config.studio.port).toBe(9000)
    expect(config.studio.consentLinkHours).toBe(24)
    expect(config.studio).toMatchObject({ masterKey: KEY_B, previousMasterKeys: [KEY_A] })
    expect(config.studio.upstream).toEqual({ baseUrl: 'https://speech.example.org', apiKey: 'sk_test' })
    expect(config.speech).toMatchObject({
      dataDir: '/srv/studio',
      port: 0,
      limits: { redirectWhenBusy: true, verificationThreshold: -0.25 },
      sharedLimits: { url: 'redis://cache:6379', prefix: 'speech:', leaseTtlMs: 2000 },
      transcriptionWorkers: 0,
      diarizationEnabled: false,
      callNetwork: { addresses: ['192.0.2.7', '::1'], portRange: { min: 50000, max: 50099 } },
      recognition: { modelDir: '/opt/model', streaming: false },
      masterKey: KEY_A,
      previousMasterKeys: [KEY_B, KEY_A],
    })
  })

  it('refuses a malformed value, naming the variable and what it got', () => {
    const wrong: Record<string, string[]> = {
      PORT: ['http', '70000', '80.5'],
      LOG_LEVEL: ['loud'],
      STUDIO_CONSENT_LINK_HOURS: ['0', '721', '1.5', '3d'],
      SVC_BASE_URL: ['not a url'],
      SPEECH_LEASE_TTL_MS: ['100', '6s'],
      SPEECH_REDIRECT_WHEN_BUSY: ['yes'],
      SPEECH_VERIFICATION_THRESHOLD: ['2', 'high'],
      SPEECH_DIARIZATION: ['no'],
      SPEECH_TRANSCRIPTION_WORKERS: ['65', '-1', '1.5'],
      SPEECH_WEBRTC_ADDRESSES: ['example.com', '127.0.0.1,'],
      SPEECH_WEBRTC_PORTS: ['50000', '9-10', '60000-50000', '50000-70000'],
      POCKETSPHINX_STREAMING: ['0'],
      SPEECH_MASTER_KEY: ['c2hvcnQ=', 'not base64 at all, and long enough to be 44 c'],
      SPEECH_MASTER_KEY_PREVIOUS: ['c2hvcnQ='],
      STUDIO_MASTER_KEY: ['c2hvcnQ='],
      STUDIO_MASTER_KEY_PREVIOUS: [`${'A'.repeat(43)}=,c2hvcnQ=`],
    }
    for (const [name, values] of Object.entries(wrong))
      for (const value of values) {
        const attempt = () => loadConfig({ [name]: value })
        expect(attempt).toThrow(ConfigError)
        expect(attempt).toThrow(`${name} must`)
        expect(attempt).toThrow(JSON.stringify(value))
      }
  })

  it('names every malformed variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', SPEECH_PORT: 'y' })).toThrow(/PORT must.*; SPEECH_PORT must/)
  })

  it('wants a key with a hosted service', () => {
    expect(() => loadConfig({ SVC_BASE_URL: 'https://speech.example.org' })).toThrow(/SVC_API_KEY is not/)
  })

  it('is documented in the README, every variable and no other', () => {
    const readme = readFileSync('README.md', 'utf8')
    const section = readme.slice(
      readme.indexOf('## Configuration'),
      readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
    )
    const documented = [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1])
    expect(documented.sort()).toEqual(Object.keys(environmentSchema.shape).sort())
  })
})
