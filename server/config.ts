import { existsSync } from 'node:fs'
import { isIP } from 'node:net'
import { resolve } from 'node:path'
import { z } from 'zod'
import type { SpeechServiceOptions } from './speech/app.ts'
import { parseMasterKey } from './storage/sealing.ts'

/**
 * The process's configuration, read from the environment in one place (README, Configuration) and parsed with one
 * schema: the launchers (`npm start`, `npm run speech`) and the CLIs take what they need from `loadConfig()`, and
 * nothing below them reads `process.env`. A malformed value stops the start, naming the variable.
 */

export const DEFAULT_STUDIO_PORT = 8080
export const DEFAULT_SPEECH_PORT = 8801
export const LOOPBACK = '127.0.0.1'
/** A consent request's link lasts three days unless STUDIO_CONSENT_LINK_HOURS says otherwise. */
export const DEFAULT_CONSENT_LINK_HOURS = 72

/** An empty variable is an unset one (`FOO= npm start`). */
const unset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value)
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(unset, schema.optional())
const text = optional(z.string().trim())
/** A number written as text, checked by `valid` (NaN never is). */
const numberWhere = (valid: (n: number) => boolean, message: string) =>
  optional(
    z
      .string()
      .trim()
      .transform(Number)
      .refine((n) => !Number.isNaN(n) && valid(n), message),
  )
const wholeNumber = (min: number, max: number, what: string) =>
  numberWhere((n) => Number.isInteger(n) && n >= min && n <= max, `must be ${what} from ${min} to ${max}`)
const port = numberWhere((n) => Number.isInteger(n) && n >= 0 && n <= 65_535, 'must be a port number')
const onOff = optional(z.enum(['on', 'off'], 'must be on or off'))

const ipList = optional(
  z
    .string()
    .transform((v) => v.split(',').map((a) => a.trim()))
    .refine((list) => list.every((a) => isIP(a) !== 0), 'must be comma-separated IP addresses'),
)
const portRange = optional(
  z
    .string()
    .trim()
    .transform((v) => /^(\d+)-(\d+)$/.exec(v))
    .transform((m) => (m ? { min: Number(m[1]), max: Number(m[2]) } : { min: 0, max: -1 }))
    .refine(
      (r) => r.min >= 1024 && r.max <= 65_535 && r.min <= r.max,
      'must be a range min-max within 1024-65535',
    ),
)

const isMasterKey = (text: string) => {
  try {
    parseMasterKey(text)
    return true
  } catch {
    return false
  }
}
const masterKeys = optional(
  z
    .string()
    .transform((v) => v.split(',').map((k) => k.trim()))
    .refine(
      (keys) => keys.every(isMasterKey),
      'must be 32 bytes written as base64 (openssl rand -base64 32)',
    ),
)

const masterKey = optional(
  z.string().trim().refine(isMasterKey, 'must be 32 bytes written as base64 (openssl rand -base64 32)'),
)

/** Every variable the product reads, with what it accepts; README's table documents each (a test keeps them equal). */
export const environmentSchema = z.object({
  DATA_DIR: text,
  LOG_LEVEL: optional(
    z.enum(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      'must be a log level such as warn',
    ),
  ),
  HOST: text,
  PORT: port,
  STUDIO_ORIGIN: text,
  STUDIO_CONSENT_LINK_HOURS: wholeNumber(1, 720, 'a whole number of hours'),
  STUDIO_MASTER_KEY: masterKey,
  STUDIO_MASTER_KEY_PREVIOUS: masterKeys,
  SPEECH_HOST: text,
  SPEECH_PORT: port,
  SVC_BASE_URL: optional(z.url('must be a URL such as https://speech.example.org')),
  SVC_API_KEY: text,
  DATABASE_URL: text,
  STUDIO_DATABASE_SCHEMA: text,
  SPEECH_DATABASE_SCHEMA: text,
  REDIS_URL: text,
  SPEECH_REDIS_PREFIX: text,
  SPEECH_LEASE_TTL_MS: wholeNumber(300, 60_000, 'a whole number of milliseconds'),
  SPEECH_REDIRECT_WHEN_BUSY: optional(z.enum(['0', '1'], 'must be 0 or 1')),
  SPEECH_VERIFICATION_THRESHOLD: numberWhere((n) => n >= -1 && n <= 1, 'must be from -1 to 1'),
  SPEECH_MASTER_KEY: masterKey,
  SPEECH_MASTER_KEY_PREVIOUS: masterKeys,
  SPEECH_DIARIZATION: onOff,
  SPEECH_TRANSCRIPTION_WORKERS: wholeNumber(0, 64, 'a whole number'),
  SPEECH_WEBRTC_ADDRESSES: ipList,
  SPEECH_WEBRTC_PORTS: portRange,
  POCKETSPHINX_BIN: text,
  POCKETSPHINX_MODEL_DIR: text,
  POCKETSPHINX_STREAMING: onOff,
})

/** What the speech service takes from the environment; the launcher adds the logger (and tests their own engines). */
export type SpeechSettings = Required<
  Pick<
    SpeechServiceOptions,
    | 'dataDir'
    | 'limits'
    | 'transcriptionWorkers'
    | 'diarizationEnabled'
    | 'callNetwork'
    | 'recognition'
    | 'previousMasterKeys'
  >
> &
  Pick<SpeechServiceOptions, 'databaseUrl' | 'databaseSchema' | 'sharedLimits' | 'masterKey'>

export interface Config {
  dataDir: string
  logLevel: string | undefined
  databaseUrl: string | undefined
  redisUrl: string | undefined
  studio: {
    host: string
    port: number
    /** STUDIO_ORIGIN as written (studio/auth/host-guard.ts parses it). */
    origin: string | undefined
    databaseSchema: string | undefined
    /** How long a consent request's link may be used (hours; default 72). */
    consentLinkHours: number
    /** STUDIO_MASTER_KEY (default: DATA_DIR/studio-master.key) and, during a rotation, the keys it replaced. */
    masterKey: string | undefined
    previousMasterKeys: string[]
    /** A hosted speech service instead of the embedded one. */
    upstream: { baseUrl: string; apiKey: string } | undefined
  }
  speech: SpeechSettings & { host: string; port: number }
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/**
 * Parses `env` (by default the process's, after a git-ignored `.env` in the working directory, which real variables
 * override). Throws a ConfigError naming every malformed variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = processEnv()): Config {
  const parsed = environmentSchema.safeParse(env)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0])
      return `${name} ${issue.message}, got ${JSON.stringify(env[name])}`
    })
    throw new ConfigError(problems.join('; '))
  }
  const e = parsed.data
  if (e.SVC_BASE_URL && !e.SVC_API_KEY)
    throw new ConfigError(
      'SVC_BASE_URL is set but SVC_API_KEY is not: the backend needs a key for the service.',
    )
  const dataDir = resolve(e.DATA_DIR ?? 'data')
  return {
    dataDir,
    logLevel: e.LOG_LEVEL,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    studio: {
      host: e.HOST ?? LOOPBACK,
      port: e.PORT ?? DEFAULT_STUDIO_PORT,
      origin: e.STUDIO_ORIGIN,
      databaseSchema: e.STUDIO_DATABASE_SCHEMA,
      consentLinkHours: e.STUDIO_CONSENT_LINK_HOURS ?? DEFAULT_CONSENT_LINK_HOURS,
      masterKey: e.STUDIO_MASTER_KEY,
      previousMasterKeys: e.STUDIO_MASTER_KEY_PREVIOUS ?? [],
      upstream:
        e.SVC_BASE_URL && e.SVC_API_KEY ? { baseUrl: e.SVC_BASE_URL, apiKey: e.SVC_API_KEY } : undefined,
    },
    speech: {
      host: e.SPEECH_HOST ?? LOOPBACK,
      port: e.SPEECH_PORT ?? DEFAULT_SPEECH_PORT,
      dataDir,
      databaseUrl: e.DATABASE_URL,
      databaseSchema: e.SPEECH_DATABASE_SCHEMA,
      limits: {
        redirectWhenBusy: e.SPEECH_REDIRECT_WHEN_BUSY === '1',
        ...(e.SPEECH_VERIFICATION_THRESHOLD !== undefined
          ? { verificationThreshold: e.SPEECH_VERIFICATION_THRESHOLD }
          : {}),
      },
      sharedLimits: e.REDIS_URL
        ? {
            url: e.REDIS_URL,
            prefix: e.SPEECH_REDIS_PREFIX ?? 'speech:',
            ...(e.SPEECH_LEASE_TTL_MS !== undefined ? { leaseTtlMs: e.SPEECH_LEASE_TTL_MS } : {}),
          }
        : undefined,
      masterKey: e.SPEECH_MASTER_KEY,
      previousMasterKeys: e.SPEECH_MASTER_KEY_PREVIOUS ?? [],
      transcriptionWorkers: e.SPEECH_TRANSCRIPTION_WORKERS ?? 2,
      diarizationEnabled: e.SPEECH_DIARIZATION !== 'off',
      callNetwork: {
        ...(e.SPEECH_WEBRTC_ADDRESSES ? { addresses: e.SPEECH_WEBRTC_ADDRESSES } : {}),
        ...(e.SPEECH_WEBRTC_PORTS ? { portRange: e.SPEECH_WEBRTC_PORTS } : {}),
      },
      recognition: {
        ...(e.POCKETSPHINX_BIN ? { binary: e.POCKETSPHINX_BIN } : {}),
        ...(e.POCKETSPHINX_MODEL_DIR ? { modelDir: e.POCKETSPHINX_MODEL_DIR } : {}),
        streaming: e.POCKETSPHINX_STREAMING !== 'off',
      },
    },
  }
}

function processEnv(): NodeJS.ProcessEnv {
  if (existsSync('.env')) process.loadEnvFile('.env')
  return process.env
}

/** Minimal `--flag value` / `--flag` argument reader for the small CLIs; unknown flags are an error. */
export function parseFlags(
  argv: string[],
  spec: Record<string, 'string' | 'boolean'>,
): { flags: Record<string, string | boolean>; positional: string[] } {
  const flags: Record<string, string | boolean> = {}
  const positional: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (!arg.startsWith('--')) {
      positional.push(arg)
      continue
    }
    const name = arg.slice(2)
    const kind = spec[name]
    if (!kind) throw new Error(`unknown option --${name}`)
    if (kind === 'boolean') flags[name] = true
    else {
      const value = argv[++i]
      if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`)
      flags[name] = value
    }
  }
  return { flags, positional }
}
