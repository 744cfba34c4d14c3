import { existsSync } from 'node:fs'
import { resolve } from 'node:path'

/**
 * Process configuration shared by the launchers (studio, speech service, CLIs). A git-ignored `.env` in the
 * working directory is read first; real environment variables win over it.
 */
if (existsSync('.env')) process.loadEnvFile('.env')

export const DEFAULT_STUDIO_PORT = 8080
export const DEFAULT_SPEECH_PORT = 8801
export const LOOPBACK = '127.0.0.1'

export function dataDir(override?: string): string {
  return resolve(override ?? process.env.DATA_DIR ?? 'data')
}

export function envPort(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const port = Number(raw)
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`${name} must be a port number, got ${raw}`)
  return port
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
