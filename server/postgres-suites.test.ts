import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ON_POSTGRES, SQLITE_ONLY } from '../vite.config.ts'

/** Every file under `dir`, as a path from the repository root. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : files(path)
    return [path]
  })
}

/** The suites that talk to a server or a store: each must say whether it runs again on PostgreSQL. */
const needsDecision = (path: string) =>
  /\.(http|ws)\.test\.ts$/.test(path) ||
  /^server\/storage\/.*\.test\.ts$/.test(path) ||
  /^server\/studio\/(database|[\w-]+\/store)(\.integration)?\.test\.ts$/.test(path) ||
  /^server\/speech\/(.+\/)?[\w-]*(store|database)[\w-]*(\.integration)?\.test\.ts$/.test(path)
/** What makes a suite `integration` (vite.config.ts): its name, and nothing else. */
const integrationByName = (path: string) => /\.(http|ws|listening|integration)\.test\.ts$/.test(path)

describe('which suites the postgres project runs again (vite.config.ts)', () => {
  const suites = files('server').filter((path) => path.endsWith('.test.ts'))

  it('has decided for every server, socket and store suite, once', () => {
    const undecided = suites
      .filter(needsDecision)
      .filter((path) => !(path in ON_POSTGRES) && !(path in SQLITE_ONLY))
    expect(undecided).toEqual([])
    expect(Object.keys(ON_POSTGRES).filter((path) => path in SQLITE_ONLY)).toEqual([])
  })

  it('names only integration suites: a store suite is one by its name, never by a list', () => {
    const named = [...Object.keys(ON_POSTGRES), ...Object.keys(SQLITE_ONLY)]
    expect(named.filter((path) => !integrationByName(path))).toEqual([])
    expect(suites.filter(needsDecision).filter((path) => !integrationByName(path))).toEqual([])
  })

  it('names only suites that exist', () => {
    const named = [...Object.keys(ON_POSTGRES), ...Object.keys(SQLITE_ONLY)]
    expect(named.filter((path) => !suites.includes(path))).toEqual([])
  })
})
