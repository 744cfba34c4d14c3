import { MODELS } from '../../../schema/index.ts'
import { type Synthesizer, speak } from '../../engine/index.ts'
import { speakingVoice } from '../voices/speaking-voice.ts'
import type { VoiceService } from '../voices/voice-service.ts'
import { audioDeltaFrames } from './audio-out.ts'
import { resolveSpeechRequest, speakRequestFor } from './speech-request.ts'

/** A plain line and a marked-up one, so the markup stage (plans, SSML, sounds) is compiled too. */
const LINES = ['Welcome back to the studio.', '[joyful] That is (((wonderful))) news! <laugh>']
/**
 * The first round costs about 2 s of one core (the pipeline's code compiled for the first time); later rounds are
 * cheap, and the first requests after three come within a few ms of the steady ones.
 */
const ROUNDS = 3

/**
 * Speaks a few short lines in every model's default voice through the same steps a streamed request takes
 * (validation, voice lookup, the engine's pipeline, 4,800-byte deltas, SSE frames), and throws the audio away.
 *
 * Without it the first request after a start took 0.8 s to its first audio byte and the next few 40–70 ms, where a
 * running service answers in 10–20 ms (issue 23; docs/architecture.md "Where the time to first audio goes"). The
 * entry points run it after the service listens, in the background: a request arriving meanwhile is served, only
 * slower. Tests' services do not run it. Never fails: a service closing stops it through `signal`.
 */
export async function warmUpSpeech(
  synthesizer: Synthesizer,
  voices: VoiceService,
  signal: AbortSignal,
): Promise<void> {
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const model of MODELS) {
        for (const input of LINES) {
          signal.throwIfAborted()
          const req = resolveSpeechRequest({ model, input, response_format: 'pcm', stream_format: 'sse' })
          if (req.voice.kind === 'inline') continue // never without a voice field: it narrows the type
          const voice = await speakingVoice(voices, 'warm-up', req.voice)
          const pcm = speak(synthesizer, speakRequestFor(req, voice, signal))
          for await (const _frame of audioDeltaFrames(req.responseFormat, pcm, signal)) {
            // Made and dropped: the point is to have run the code that makes them.
          }
        }
      }
    }
  } catch {
    // Closed meanwhile, or the engine refused: the service simply starts cold, as it did without a warm-up.
  }
}
