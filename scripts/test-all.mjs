// `npm test`: unit and integration tests (Vitest), end-to-end tests (Playwright), then every benchmark in its smoke
// mode (bench/smoke.ts), totalled on a last line `N passed, N failed` as CI expects.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'

const OUT = 'test-results'
mkdirSync(OUT, { recursive: true })

/** Names of the failed tests, repeated at the end so a log's last lines say what failed, not only how many. */
const failures = []

/** A child's end: its exit status (null when a signal ended it) and the signal. */
const exited = (child) =>
  new Promise((resolve) => {
    child.on('error', (error) => resolve({ status: null, signal: null, error }))
    child.on('close', (status, signal) => resolve({ status, signal }))
  })

/** The first lines of a runner's message, on one line, for the summary at the end of the log. */
const firstLines = (message = '') => message.split('\n').slice(0, 3).join(' ⏎ ').slice(0, 400) || 'no message'

async function run(name, command, args, env, reportFile, count, failedNames) {
  rmSync(reportFile, { force: true })
  const result = await exited(spawn(command, args, { stdio: 'inherit', env: { ...process.env, ...env } }))
  if (!existsSync(reportFile)) {
    console.error(`${name}: no report was written (exit ${result.status}); counted as one failure`)
    return { passed: 0, failed: 1 }
  }
  const report = JSON.parse(readFileSync(reportFile, 'utf8'))
  const totals = count(report)
  for (const failedName of failedNames(report)) failures.push(`${name}: ${failedName}`)
  // A runner that failed without failing a test (a crash, a suite that did not load) still fails the run.
  if (result.status !== 0 && totals.failed === 0) totals.failed = 1
  return totals
}

const unit = await run(
  'vitest',
  'npx',
  ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${OUT}/unit.json`],
  {},
  `${OUT}/unit.json`,
  (r) => ({ passed: r.numPassedTests, failed: r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0) }),
  (r) =>
    r.testResults.flatMap((file) => {
      const failedTests = file.assertionResults.filter((t) => t.status === 'failed').map((t) => t.fullName)
      // A suite that did not load has no failed assertions, only a message: its first lines say why.
      if (failedTests.length === 0 && file.status === 'failed')
        return [`${file.name} (suite failed to run: ${firstLines(file.message)})`]
      return failedTests.map((t) => `${file.name} › ${t}`)
    }),
)
/**
 * Vitest's `retry` is per test: a suite whose setup or teardown failed (a hook, a server that would not start) gets no
 * second try. Each such suite runs once more, alone; it counts as failed only if it fails again, and is named at the
 * end either way, with the first run's message.
 */
const unitReport = existsSync(`${OUT}/unit.json`)
  ? JSON.parse(readFileSync(`${OUT}/unit.json`, 'utf8'))
  : null
const unloaded = (unitReport?.testResults ?? []).filter(
  (file) => file.status === 'failed' && !file.assertionResults.some((t) => t.status === 'failed'),
)
for (const file of unloaded) {
  const again = await run(
    'vitest (the suite again, alone)',
    'npx',
    [
      'vitest',
      'run',
      file.name,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${OUT}/again.json`,
    ],
    {},
    `${OUT}/again.json`,
    (r) => ({ passed: r.numPassedTests, failed: r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0) }),
    () => [],
  )
  if (again.failed > 0) continue
  unit.failed = Math.max(0, unit.failed - 1)
  const named = failures.findIndex((f) => f.startsWith(`vitest: ${file.name} (`))
  if (named >= 0) failures[named] += ' (flaky: passed when run again alone)'
}
// The e2e servers start together and each would build a stale app; build once first so they never race on dist/.
spawnSync('node', ['scripts/build-if-needed.mjs'], { stdio: 'inherit' })
const e2eRun = run(
  'playwright',
  'npx',
  ['playwright', 'test', '--reporter=list,json'],
  { PLAYWRIGHT_JSON_OUTPUT_NAME: `${OUT}/e2e.json` },
  `${OUT}/e2e.json`,
  (r) => ({ passed: r.stats.expected + r.stats.flaky, failed: r.stats.unexpected }),
  (r) => [
    ...playwrightTests(r.suites ?? [], [], 'unexpected'),
    // Passed on its retry: counted as passed, named so that a journey that keeps needing one is seen.
    ...playwrightTests(r.suites ?? [], [], 'flaky').map((t) => `${t} (flaky: passed on its retry)`),
  ],
)

/** Titles of the Playwright tests with this outcome, with their project, walking the nested suites. */
function playwrightTests(suites, path, status) {
  return suites.flatMap((suite) => {
    const here = suite.title ? [...path, suite.title] : path
    const specs = (suite.specs ?? []).flatMap((spec) =>
      spec.tests
        .filter((t) => t.status === status)
        .map((t) => `[${t.projectName}] ${[...here, spec.title].join(' › ')}`),
    )
    return [...specs, ...playwrightTests(suite.suites ?? [], here, status)]
  })
}

/**
 * Every benchmark `package.json` runs (`bench:*`, `eval:*`), once each with `--smoke`: tiny counts, so that none can
 * stop working unnoticed. The figures are printed, never judged; each run counts as one test, failed when it exits
 * non-zero, crashes or hangs past its time. They run one after another beside the end-to-end tests rather than after
 * them: Playwright's one worker mostly waits on the app's real-time audio, and a smoke run's figures mean nothing
 * anyway, so sharing the machine changes no outcome (docs/deploy.md, Where CI time goes). Each one's output is
 * printed whole when it ends, so it never interleaves with Playwright's lines.
 */
const BENCH_TIMEOUT_MS = 5 * 60_000
const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts
const bench = { passed: 0, failed: 0 }

async function smoke(name) {
  const started = Date.now()
  // Its own process group, so a hung benchmark is killed with the servers it started.
  const child = spawn('npm', ['run', '--silent', name, '--', '--smoke'], {
    env: { ...process.env, BENCH_SMOKE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  const output = []
  child.stdout.on('data', (chunk) => output.push(chunk))
  child.stderr.on('data', (chunk) => output.push(chunk))
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {}
  }, BENCH_TIMEOUT_MS)
  const result = await exited(child)
  clearTimeout(timer)
  const seconds = ((Date.now() - started) / 1000).toFixed(0)
  const ok = result.status === 0
  const why = timedOut ? 'timed out' : `exit ${result.status ?? result.signal}`
  if (ok) bench.passed++
  else {
    bench.failed++
    failures.push(`bench: ${name} --smoke (${why})`)
  }
  process.stdout.write(
    `\n--- ${name} --smoke\n${Buffer.concat(output).toString()}` +
      `${ok ? '' : `${name} --smoke failed (${why})\n`}--- ${name} --smoke: ${ok ? 'ran' : 'FAILED'} in ${seconds} s\n`,
  )
}

const benches = (async () => {
  for (const name of Object.keys(scripts).filter((n) => /^(bench|eval):/.test(n))) await smoke(name)
})()
const [e2e] = await Promise.all([e2eRun, benches])

if (failures.length > 0) console.log(`\nfailed or flaky:\n${failures.map((f) => `  ${f}`).join('\n')}\n`)
const passed = unit.passed + e2e.passed + bench.passed
const failed = unit.failed + e2e.failed + bench.failed
console.log(
  `vitest: ${unit.passed} passed, ${unit.failed} failed; e2e: ${e2e.passed} passed, ${e2e.failed} failed; ` +
    `bench smoke: ${bench.passed} passed, ${bench.failed} failed`,
)
console.log(`${passed} passed, ${failed} failed`)
process.exitCode = failed > 0 ? 1 : 0
