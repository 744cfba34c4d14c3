import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEspeakSynthesizer, type Synthesizer } from '../../engine/index.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { spokenPcm, wavFile } from '../../testing/spoken-audio.ts'
import { type BrowserHeaders, type RunningStudio, startStudio } from '../../testing/studio.ts'

/**
 * A browser that cancels a proxied request ends it at the service too (upstream-abort.ts), through the real backend
 * and the real local service. A voice save waits in the service's cloning queue (one preparation at a time, first
 * come first served) behind another voice being made; the browser cancels it there, after its whole upload has gone
 * through. A third voice made afterwards queues behind it, so once the third is answered the cancelled one has either
 * been made (the service never heard the browser go) or never will be.
 */

let synth: Synthesizer
let svc: RunningService
let studio: RunningStudio
let admin: BrowserHeaders
let sample: Buffer

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
  sample = wavFile(
    await spokenPcm(
      synth,
      'The weather today is bright and calm, and the river runs slowly past the old mill by the bridge.',
      'english_40',
    ),
  )
  svc = await startSpeechService()
  studio = await startStudio(svc)
  admin = await studio.signInAs('consent_admin')
}, 120_000)

afterAll(async () => {
  await studio?.close()
  await svc?.close()
  await synth?.close()
})

function voiceForm(name: string, transcript?: string): FormData {
  const form = new FormData()
  form.append('name', name)
  if (transcript) form.append('reference_transcript', transcript)
  form.append('audio_sample', new Blob([new Uint8Array(sample)], { type: 'audio/wav' }), 'sample.wav')
  return form
}

/** Creates a voice at the service directly, with the service's key. */
function createDirect(name: string, transcript?: string): Promise<Response> {
  return fetch(`${svc.baseUrl}/v1/audio/voices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.apiKey}` },
    body: voiceForm(name, transcript),
  })
}

async function savedVoiceNames(): Promise<string[]> {
  const res = await fetch(`${svc.baseUrl}/v1/voices?model=svc-tts-2-latest`, {
    headers: { authorization: `Bearer ${svc.apiKey}` },
  })
  const body = (await res.json()) as { data?: Array<{ name: string; type?: string; voice_id?: string }> }
  return (body.data ?? []).map((v) => v.name)
}

describe('a request the browser cancels', () => {
  it('leaves the service’s cloning queue: the cancelled voice is never made', async () => {
    // Without a transcript the service recognizes the sample's words: the cloning slot is held for a while.
    const first = createDirect('made first')
    await new Promise((r) => setTimeout(r, 300))

    const cancel = new AbortController()
    const cancelled = fetch(`${studio.base}/api/v1/audio/voices`, {
      method: 'POST',
      headers: { ...admin },
      body: voiceForm('cancelled in the queue'),
      signal: cancel.signal,
    })
    // The upload (a few hundred kilobytes over loopback) is through long before this; the save waits for the slot.
    await new Promise((r) => setTimeout(r, 400))
    cancel.abort()
    await expect(cancelled).rejects.toThrow()

    expect((await first).status).toBe(200)
    const third = await createDirect('made third', 'The weather today is bright and calm.')
    expect(third.status).toBe(200)

    const names = await savedVoiceNames()
    expect(names).toContain('made first')
    expect(names).toContain('made third')
    expect(names).not.toContain('cancelled in the queue')
  }, 60_000)
})
