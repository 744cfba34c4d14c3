/**
 * A child process for the crash test: creates and deletes consents and voices in a loop until it is killed, in the
 * speech database of DATA_DIR — speech.db, or PostgreSQL when `DATABASE_URL` and `SPEECH_DATABASE_SCHEMA` are set
 * (server/testing/speech-database.ts). Each artifact is large enough (~1 MB) that a kill often lands mid-write.
 */
import { openSpeechStorage } from '../speech/database.ts'
import { VoiceStore } from '../speech/voices/voice-store.ts'

const dir = process.argv[2]
if (!dir) throw new Error('usage: voice-store-churn.ts DATA_DIR')
const storage = await openSpeechStorage({
  dataDir: dir,
  databaseUrl: process.env.DATABASE_URL,
  schema: process.env.SPEECH_DATABASE_SCHEMA,
})
const store = await VoiceStore.open(storage, dir)
const artifacts = () => ({
  audio: new Float32Array(256_000).fill(Math.random()),
  embedding: new Float32Array(64).fill(1),
  embedderVersion: 'churn',
})
const params = { espeakVoice: 'en-us+m1', pitch: 50, range: 50, rate: 175 }
const voice = (consentId: string | null) => ({
  name: 'v',
  consentId,
  language: 'en-US',
  preparedVersion: 'p',
  params,
})

for (let round = 0; ; round++) {
  const owner = `org_${round % 3}`
  const consent = await store.createConsent(owner, { name: 'c', language: 'en-US' }, artifacts())
  const bound = await store.createVoice(owner, voice(consent.id), artifacts())
  await store.createVoice(owner, voice(null), artifacts())
  if (round % 2 === 0 && bound) await store.deleteVoice(owner, bound.id)
  if (round % 3 === 0) await store.deleteConsent(owner, consent.id)
  process.stdout.write('.')
}
