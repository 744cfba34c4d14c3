/**
 * A child process for the crash test: creates and deletes consents and voices in a loop on DATA_DIR until it is
 * killed. Each artifact is large enough (~1 MB) that a kill often lands mid-write.
 */
import { openSpeechDb } from '../speech/store/db.ts'
import { VoiceStore } from '../speech/store/voices.ts'

const dir = process.argv[2]
if (!dir) throw new Error('usage: voice-store-churn.ts DATA_DIR')
const store = new VoiceStore(openSpeechDb(dir), dir)
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
  const consent = store.createConsent(owner, { name: 'c', language: 'en-US' }, artifacts())
  const bound = store.createVoice(owner, voice(consent.id), artifacts())
  store.createVoice(owner, voice(null), artifacts())
  if (round % 2 === 0 && bound) store.deleteVoice(owner, bound.id)
  if (round % 3 === 0) store.deleteConsent(owner, consent.id)
  process.stdout.write('.')
}
