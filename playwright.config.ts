import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineConfig } from '@playwright/test'

/** End-to-end tests against the real backend, the real local speech service and a real Chromium. */
const port = Number(process.env.E2E_PORT ?? 8181)
const speechPort = Number(process.env.E2E_SPEECH_PORT ?? 8891)
export const e2eDataDir = join(tmpdir(), `speech-studio-e2e-${port}`)
/** The main studio's log (both servers, at info level), read by e2e/secrets.spec.ts. */
export const e2eServerLog = `${e2eDataDir}.log`

/**
 * The users seeded into the studios that have them (passwords piped to the real `npm run users` CLI). Plain
 * letters, digits and spaces only: they are written into a shell command below.
 */
export const e2eUsers = {
  designer: { name: 'dana', password: 'designer password 1', role: 'designer' },
  reviewer: { name: 'ria', password: 'reviewer password 1', role: 'reviewer' },
  consentAdmin: { name: 'cole', password: 'consent admin password 1', role: 'consent_admin' },
} as const

/**
 * The voices tests' audio, made with the project's eSpeak engine by e2e/voices.setup.ts: the consent phrase that
 * Chromium's fake microphone plays (in a loop) and the voice samples the tests upload.
 */
export const e2eVoiceClipsDir = join(tmpdir(), `speech-studio-e2e-${port}-voice-clips`)

/**
 * The transcripts tests' fake microphone: a real meeting recording from ../shared/data/diarization (32-bit float)
 * converted to 16-bit PCM by e2e/transcripts.setup.ts, since Chromium's fake capture reads PCM16 WAV.
 */
export const e2eMeetingMicWav = join(tmpdir(), `speech-studio-e2e-${port}-meeting-mic.wav`)

/**
 * A second studio, on the embedded local service but with real users, so it shows the sign-in page. Its service
 * is started without recognition (no PocketSphinx at the path given) and with diarization off, so the health banner
 * has engines to name.
 */
const signInPort = port + 1
const signInSpeechPort = speechPort + 1
const signInDataDir = join(tmpdir(), `speech-studio-e2e-${signInPort}`)
export const e2eSignInBaseURL = `http://127.0.0.1:${signInPort}`

/**
 * A third studio whose speech service (SVC_BASE_URL) is a closed port, so nothing answers. A remote service never
 * gets the automatic local admin, so it has a user to sign in with.
 */
const deadUpstreamPort = port + 2
const deadUpstreamDataDir = join(tmpdir(), `speech-studio-e2e-${deadUpstreamPort}`)
export const e2eDeadUpstreamBaseURL = `http://127.0.0.1:${deadUpstreamPort}`

/**
 * A fourth studio, like the third but with no users at all: a remote service opens no automatic admin, so its
 * sign-in page must say how the first user is made.
 */
const noUsersPort = port + 3
const noUsersDataDir = join(tmpdir(), `speech-studio-e2e-${noUsersPort}`)
export const e2eNoUsersBaseURL = `http://127.0.0.1:${noUsersPort}`

/**
 * The product as a cluster (scripts/local-cluster.ts): two studio backends and two speech instances on one PostgreSQL
 * database and one Redis, each tier behind a round-robin front, so the browser's consecutive requests alternate
 * between backends and the backends' between speech instances. The journeys run against its front exactly as against
 * the single studio, signed in as an admin (a remote service has no automatic one).
 */
const clusterPort = port + 10
export const e2eClusterBaseURL = `http://127.0.0.1:${clusterPort}`
/** The backends behind the front, for tests that must reach one of them on purpose. */
export const e2eClusterBackends = [1, 2].map((i) => `http://127.0.0.1:${clusterPort + i}`)
export const e2eClusterAdmin = { name: 'cluster_admin', password: 'cluster admin password 1', role: 'admin' }
/** What the users CLI needs to work on the cluster's users (as scripts/local-cluster.ts chooses them). */
export const e2eClusterUsersEnv = {
  DATABASE_URL: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
  STUDIO_DATABASE_SCHEMA: `e2e_${clusterPort}_studio`,
}
/** The signed-in admin's cookies, written by e2e/cluster.setup.ts. */
export const e2eClusterState = join(tmpdir(), `speech-studio-e2e-${clusterPort}-state.json`)

/** Shell commands that add a user to the studio database in `dir`, reading the password from stdin. */
function addUser(user: { name: string; password: string; role: string }, dir: string): string {
  return `printf '%s\\n' '${user.password}' | npm run --silent users -- add ${user.name} --role ${user.role} --data ${dir}`
}

/**
 * The tests that make up the three journeys, run again through the cluster: a designer previews, keeps and saves a
 * script (and meets the 409 of another browser's save); a consent administrator records a consent, makes a voice of
 * it and revokes both; a reviewer uploads a recording and relabels its transcript. Plus e2e/cluster.spec.ts.
 */
const CLUSTER_JOURNEYS = new RegExp(
  [
    'the line plays through the worklet',
    'a script is kept by the backend',
    'a script saved in another browser meanwhile',
    'record a consent, make a voice of it',
    'a real recording is transcribed with speakers',
    // The sockets: bridged by whichever backend the upgrade reaches, the secret minted by another.
    'live transcription from the microphone shows words and each turn',
    'live mode speaks phrases before the text is finished',
    'through the cluster',
  ].join('|'),
)

const executablePath =
  process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE ??
  (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined)

const chromiumArgs = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--autoplay-policy=no-user-gesture-required',
]

/** The voices tests' Chromium: a fake microphone that plays the consent phrase, allowed without asking. */
const fakeMicrophoneArgs = [
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  `--use-file-for-fake-audio-capture=${join(e2eVoiceClipsDir, 'consent-phrase.wav')}`,
]

export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  workers: 1,
  // One more try for a journey that lost a race with a loaded machine; it is reported as flaky (and listed by
  // `npm test`), and a journey that fails twice fails the run.
  retries: 1,
  reporter: 'list',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: { executablePath, args: chromiumArgs },
  },
  projects: [
    { name: 'chromium', testIgnore: /(voices|transcripts|secrets|cluster)\.(spec|setup)\.ts$/ },
    { name: 'voices-setup', testMatch: /voices\.setup\.ts$/ },
    {
      name: 'voices',
      testMatch: /(voices|secrets)\.spec\.ts$/,
      dependencies: ['voices-setup'],
      use: { launchOptions: { executablePath, args: [...chromiumArgs, ...fakeMicrophoneArgs] } },
    },
    { name: 'transcripts-setup', testMatch: /transcripts\.setup\.ts$/ },
    {
      name: 'transcripts',
      testMatch: /transcripts\.spec\.ts$/,
      dependencies: ['transcripts-setup'],
      use: {
        launchOptions: {
          executablePath,
          args: [
            ...chromiumArgs,
            '--use-fake-device-for-media-stream',
            '--use-fake-ui-for-media-stream',
            `--use-file-for-fake-audio-capture=${e2eMeetingMicWav}`,
          ],
        },
      },
    },
    // The three journeys again, through the cluster: the same tests, an admin signed in, the front as the origin.
    { name: 'cluster-setup', testMatch: /cluster\.setup\.ts$/, use: { baseURL: e2eClusterBaseURL } },
    {
      name: 'cluster',
      testMatch: /(script|cluster)\.spec\.ts$/,
      grep: CLUSTER_JOURNEYS,
      dependencies: ['cluster-setup'],
      metadata: { actor: e2eClusterAdmin.name },
      use: { baseURL: e2eClusterBaseURL, storageState: e2eClusterState },
    },
    {
      name: 'cluster-voices',
      testMatch: /voices\.spec\.ts$/,
      grep: CLUSTER_JOURNEYS,
      dependencies: ['cluster-setup', 'voices-setup'],
      metadata: { actor: e2eClusterAdmin.name },
      use: {
        baseURL: e2eClusterBaseURL,
        storageState: e2eClusterState,
        launchOptions: { executablePath, args: [...chromiumArgs, ...fakeMicrophoneArgs] },
      },
    },
    {
      name: 'cluster-transcripts',
      testMatch: /transcripts\.spec\.ts$/,
      grep: CLUSTER_JOURNEYS,
      dependencies: ['cluster-setup', 'transcripts-setup'],
      use: {
        baseURL: e2eClusterBaseURL,
        storageState: e2eClusterState,
        launchOptions: {
          executablePath,
          args: [
            ...chromiumArgs,
            '--use-fake-device-for-media-stream',
            '--use-fake-ui-for-media-stream',
            `--use-file-for-fake-audio-capture=${e2eMeetingMicWav}`,
          ],
        },
      },
    },
  ],
  webServer: [
    {
      command: [
        `npx tsx scripts/local-cluster.ts --port ${clusterPort} --name e2e_${clusterPort} --fresh`,
        `--user '${e2eClusterAdmin.name}:${e2eClusterAdmin.role}:${e2eClusterAdmin.password}'`,
      ].join(' '),
      url: `${e2eClusterBaseURL}/api/health`,
      timeout: 240_000,
      reuseExistingServer: false,
      env: { POCKETSPHINX_BIN: process.env.POCKETSPHINX_BIN ?? '/usr/bin/pocketsphinx_batch' },
    },
    {
      command: `rm -rf ${e2eDataDir} && npm start > ${e2eServerLog} 2>&1`,
      url: `http://127.0.0.1:${port}/api/health`,
      timeout: 180_000,
      reuseExistingServer: false,
      env: {
        PORT: String(port),
        SPEECH_PORT: String(speechPort),
        DATA_DIR: e2eDataDir,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
      },
    },
    {
      command: [
        `rm -rf ${signInDataDir}`,
        addUser(e2eUsers.designer, signInDataDir),
        addUser(e2eUsers.reviewer, signInDataDir),
        addUser(e2eUsers.consentAdmin, signInDataDir),
        'npm start',
      ].join(' && '),
      url: `${e2eSignInBaseURL}/api/health`,
      timeout: 180_000,
      reuseExistingServer: false,
      env: {
        PORT: String(signInPort),
        SPEECH_PORT: String(signInSpeechPort),
        DATA_DIR: signInDataDir,
        HOST: '127.0.0.1',
        POCKETSPHINX_BIN: '/nonexistent/pocketsphinx_batch',
        SPEECH_DIARIZATION: 'off',
      },
    },
    {
      command: [
        `rm -rf ${deadUpstreamDataDir}`,
        addUser(e2eUsers.designer, deadUpstreamDataDir),
        'npm start',
      ].join(' && '),
      url: `${e2eDeadUpstreamBaseURL}/api/health`,
      timeout: 180_000,
      reuseExistingServer: false,
      env: {
        PORT: String(deadUpstreamPort),
        DATA_DIR: deadUpstreamDataDir,
        HOST: '127.0.0.1',
        // Port 9 (discard) is closed on loopback: connections are refused at once.
        SVC_BASE_URL: 'http://127.0.0.1:9',
        SVC_API_KEY: 'sk_unused',
      },
    },
    {
      command: `rm -rf ${noUsersDataDir} && npm start`,
      url: `${e2eNoUsersBaseURL}/api/health`,
      timeout: 180_000,
      reuseExistingServer: false,
      env: {
        PORT: String(noUsersPort),
        DATA_DIR: noUsersDataDir,
        HOST: '127.0.0.1',
        SVC_BASE_URL: 'http://127.0.0.1:9',
        SVC_API_KEY: 'sk_unused',
      },
    },
  ],
})
