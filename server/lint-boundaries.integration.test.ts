import { spawnSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'

/**
 * The layering rules of docs/architecture.md are the linter's (biome.json `overrides`), not only prose: for each rule,
 * a file that breaks it is written where the rule applies, and `biome lint` must refuse it. A rule whose pattern
 * stopped matching (a renamed folder, an override shadowed by a later one) fails here instead of passing silently.
 */
const cases: Array<{ rule: string; path: string; source: string; expect: RegExp }> = [
  {
    rule: 'the studio backend reaches the speech service over HTTP only',
    path: 'server/studio/__lint_fixture.ts',
    source: "import { createSpeechService } from '../speech/app.ts'\nexport const x = createSpeechService\n",
    expect: /over HTTP only/,
  },
  {
    rule: 'the studio backend does not load engines',
    path: 'server/studio/__lint_fixture_2.ts',
    source:
      "import { createSpeakerEmbedder } from '../engine/speaker/index.ts'\nexport const x = createSpeakerEmbedder\n",
    expect: /over HTTP only/,
  },
  {
    rule: 'the storage layer knows neither server',
    path: 'server/storage/__lint_fixture.ts',
    source: "import { openStudioStorage } from '../studio/database.ts'\nexport const x = openStudioStorage\n",
    expect: /knows neither/,
  },
  {
    rule: 'engines know nothing of the servers',
    path: 'server/engine/__lint_fixture.ts',
    source: "import { ApiError } from '../speech/errors.ts'\nexport const x = ApiError\n",
    expect: /Engines know nothing/,
  },
  {
    rule: 'product code does not import test helpers',
    path: 'server/engine/__lint_fixture_testing.ts',
    source: "import { meetingFile } from '../testing/meetings.ts'\nexport const x = meetingFile\n",
    expect: /does not import test helpers/,
  },
  {
    rule: 'the speech service knows nothing of the studio',
    path: 'server/speech/__lint_fixture.ts',
    source: "import { createStudio } from '../studio/app.ts'\nexport const x = createStudio\n",
    expect: /knows nothing of the studio/,
  },
  {
    rule: 'only server/config.ts reads the environment',
    path: 'server/speech/__lint_fixture_env.ts',
    source: 'export const x = process.env.SPEECH_PORT\n',
    expect: /noProcessEnv/,
  },
  {
    rule: 'no import cycles, type-only imports included (one side)',
    path: 'server/engine/__lint_fixture_cycle_a.ts',
    source: "import type { B } from './__lint_fixture_cycle_b.ts'\nexport interface A {\n  b?: B\n}\n",
    expect: /part of a cycle/,
  },
  {
    rule: 'no import cycles, type-only imports included (the other side)',
    path: 'server/engine/__lint_fixture_cycle_b.ts',
    source: "import type { A } from './__lint_fixture_cycle_a.ts'\nexport interface B {\n  a?: A\n}\n",
    expect: /part of a cycle/,
  },
  {
    rule: 'a page may not import another page',
    path: 'src/pages/voices/__lint_fixture.ts',
    source: "import { ScriptPage } from '../script/ScriptPage.tsx'\nexport const x = ScriptPage\n",
    expect: /may not import another page/,
  },
  {
    rule: 'the browser app shares only schema/ with the servers',
    path: 'src/api/__lint_fixture.ts',
    source: "import { ApiError } from '../../server/speech/errors.ts'\nexport const x = ApiError\n",
    expect: /shares only schema/,
  },
  {
    rule: 'schema/ imports nothing but zod',
    path: 'schema/__lint_fixture.ts',
    source: "import { readFileSync } from 'node:fs'\nexport const x = readFileSync\n",
    expect: /imports nothing but zod/,
  },
  {
    rule: 'schema/ does not import core/ outside the files allowed to',
    path: 'schema/__lint_fixture_core.ts',
    source: "import { readWav } from '../core/wav.ts'\nexport const x = readWav\n",
    expect: /imports nothing but zod/,
  },
  {
    rule: 'core/ imports nothing of Node',
    path: 'core/__lint_fixture.ts',
    source: "import { readFileSync } from 'node:fs'\nexport const x = readFileSync\n",
    expect: /core\/ is pure/,
  },
  {
    rule: 'core/ imports nothing of the servers, the browser app or the contract',
    path: 'core/__lint_fixture_2.ts',
    source:
      "import { SAMPLE_RATE } from '../schema/index.ts'\nimport { pcm16WavHeader } from '../server/wav.ts'\nexport const x = [SAMPLE_RATE, pcm16WavHeader]\n",
    expect: /core\/ is pure/,
  },
  {
    rule: 'core/ uses no DOM or Node globals',
    path: 'core/__lint_fixture_3.ts',
    source: 'export const x = () => [document.title, process.env]\n',
    expect: /core\/ is pure: no DOM globals[\s\S]*core\/ is pure: no Node globals/,
  },
]

/** One `biome lint` over every fixture (its import-cycle rule reads the whole project, so each run takes seconds). */
function lint(paths: string[]): { status: number | null; byFile: Map<string, string> } {
  const result = spawnSync('npx', ['biome', 'lint', '--max-diagnostics=200', ...paths], { encoding: 'utf8' })
  const byFile = new Map<string, string>()
  // Each diagnostic starts with a line `path:line:col lint/group/rule ━━━`; its message follows.
  let current: string | null = null
  for (const line of `${result.stdout}${result.stderr}`.split('\n')) {
    const start = /^(\S+):\d+:\d+ lint\//.exec(line)
    if (start) current = start[1] as string
    if (current) byFile.set(current, `${byFile.get(current) ?? ''}${line}\n`)
  }
  return { status: result.status, byFile }
}

const ALLOWED_PATH = 'src/pages/voices/__lint_fixture_allowed.ts'
const ALLOWED_SOURCE =
  "import { SAMPLE_RATE } from '../../../schema/index.ts'\nimport { useObjectUrl } from '../../components/useObjectUrl.ts'\nexport const x = [SAMPLE_RATE, useObjectUrl]\n"

describe('layering rules the linter enforces', () => {
  let result: ReturnType<typeof lint>
  beforeAll(() => {
    for (const c of cases) writeFileSync(c.path, c.source)
    writeFileSync(ALLOWED_PATH, ALLOWED_SOURCE)
    try {
      result = lint([...cases.map((c) => c.path), ALLOWED_PATH])
    } finally {
      for (const c of cases) rmSync(c.path, { force: true })
      rmSync(ALLOWED_PATH, { force: true })
    }
  }, 120_000)

  for (const c of cases) {
    it(c.rule, () => {
      expect(result.status).not.toBe(0)
      expect(result.byFile.get(c.path) ?? '').toMatch(c.expect)
    })
  }

  it('lets the allowed directions through', () => {
    expect(result.byFile.get(ALLOWED_PATH) ?? '').not.toMatch(/noRestrictedImports/)
  })
})

describe('core/ is pure', () => {
  // The linter denies core/ the usual DOM and Node globals by name; the compiler proves it for every name: core/'s own
  // tsconfig.json has the language's library only, no DOM lib and no @types/node.
  it('type-checks without the DOM and Node type definitions', () => {
    const result = spawnSync('npx', ['tsc', '--noEmit', '-p', 'core/tsconfig.json'], { encoding: 'utf8' })
    expect(`${result.stdout}${result.stderr}`).toBe('')
    expect(result.status).toBe(0)
  }, 60_000)
})
