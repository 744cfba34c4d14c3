import {
  CONSENT_MAX_SECONDS,
  CONSENT_MIN_SECONDS,
  CONSENT_PHRASE,
  isConsentPhrase,
  VOICE_SAMPLE_MAX_SECONDS,
  VOICE_SAMPLE_MIN_SECONDS,
} from '../../../schema/index.ts'
import { PREPARATION_VERSION, prepareVoice } from '../../engine/cloning/index.ts'
import { AudioDecodeError, decodeAudio } from '../../engine/codecs/decode.ts'
import type { Synthesizer, VoiceParams } from '../../engine/index.ts'
import {
  RECOGNITION_SAMPLE_RATE,
  type Recognizer,
  RecognizerUnavailableError,
} from '../../engine/recognition/recognizer.ts'
import { type SpeakerEmbedder, verificationScore } from '../../engine/speaker/embedder.ts'
import { MIN_VERIFIED_SPEECH_SECONDS } from '../../engine/speaker/screen.ts'
import { isStorageUnavailable } from '../../storage/index.ts'
import {
  ApiError,
  consentNotFound,
  customVoiceBusy,
  recognitionUnavailable,
  unusableAudio,
  voiceNotFound,
} from '../errors.ts'
import type { Slot, SlotPool } from '../limits/slots.ts'
import type { ConsentRecord, VoiceRecord, VoiceStore } from './voice-store.ts'

/** What the recording screen says of a consent clip, or of a sample checked against a consent (screen.ts). */
export interface RecordingScreen {
  speechSeconds: number
  /** Seconds of voiced speech, the evidence speaker verification decides by. */
  voicedSeconds: number
  speakers: number
  music: boolean
  /** Too little or too noisy speech to judge the clip by: refused with what to record instead. */
  weakEvidence?: 'too_short' | 'too_noisy' | null
}

export interface VoiceServiceDeps {
  store: VoiceStore
  /** Renders the prepared voice during preparation, to match its spectral envelope to the reference. */
  synthesizer: Synthesizer
  recognizer: Recognizer
  embedder: SpeakerEmbedder
  screen: (audio: Float32Array) => RecordingScreen
  /** Cosine similarity a sample must reach against its consent's recording (deployment setting). */
  verificationThreshold: number
  /** The bounded cloning queue (contract 7, 8): its concurrency is the slot count, its size the waiters. */
  cloning: SlotPool
  cloningWaitMs: number
  /** The engine's current preparation version; voices prepared under another are prepared again on use. */
  preparationVersion?: string
  /** How long a speech request waits for such a preparation before 503 (contract 3: about 25 s). */
  preparationDeadlineMs: number
}

/** A saved voice ready for synthesis, or the 503 a client should retry after. */
export type PreparedResult = { params: VoiceParams; language: string } | { retryAfterSeconds: number }

const CLONING_QUEUE = 'cloning'

/**
 * The rules of consents and saved voices (contract 3, 4.3–4.8): the consent recording's checks, speaker verification,
 * the cloning queue, and voice preparation with its version. Routes do HTTP; the store does persistence.
 */
export class VoiceService {
  private readonly preparing = new Map<string, Promise<VoiceParams | null>>()
  readonly preparationVersion: string

  constructor(private readonly deps: VoiceServiceDeps) {
    this.preparationVersion = deps.preparationVersion ?? PREPARATION_VERSION
  }

  get store(): VoiceStore {
    return this.deps.store
  }

  async createConsent(
    owner: string,
    fields: { name: string; language: string; transcript?: string },
    recording: Uint8Array,
  ): Promise<ConsentRecord> {
    const audio = await decodeUpload(recording, 'recording', CONSENT_MAX_SECONDS + 1)
    const seconds = audio.length / RECOGNITION_SAMPLE_RATE
    if (seconds < CONSENT_MIN_SECONDS || seconds > CONSENT_MAX_SECONDS) {
      throw unusableAudio(
        'recording_duration_out_of_range',
        'recording',
        `The consent recording lasts ${seconds.toFixed(1)} s; it must last ${CONSENT_MIN_SECONDS} to ${CONSENT_MAX_SECONDS} seconds.`,
      )
    }
    const screen = this.deps.screen(audio)
    if (screen.music) {
      throw unusableAudio(
        'music_detected',
        'recording',
        'The consent recording contains music. Record the phrase again without music in the background.',
      )
    }
    if (screen.weakEvidence === 'too_short') {
      throw unusableAudio(
        'invalid_audio',
        'recording',
        `The consent recording holds too little speech (${screen.voicedSeconds.toFixed(1)} s of voice; at least ${MIN_VERIFIED_SPEECH_SECONDS} s is needed) to check who speaks in it. Record the whole phrase again, a little longer, at a steady pace and close to the microphone.`,
      )
    }
    if (screen.weakEvidence === 'too_noisy') {
      throw unusableAudio(
        'invalid_audio',
        'recording',
        'The consent recording is too noisy to check who speaks in it. Record again closer to the microphone, in a quieter room.',
      )
    }
    if (screen.speakers > 1) {
      throw unusableAudio(
        'multiple_speakers',
        'recording',
        'More than one person speaks in the consent recording. The voice owner must record it alone, with nobody else talking.',
      )
    }
    await this.checkPhrase(audio, fields.transcript)
    const embedding = this.deps.embedder.embed(audio)
    if (!embedding) {
      throw unusableAudio('invalid_audio', 'recording', 'The consent recording holds too little speech.')
    }
    return this.deps.store.createConsent(
      owner,
      { name: fields.name, language: fields.language },
      { audio, embedding, embedderVersion: this.deps.embedder.version },
    )
  }

  private async checkPhrase(audio: Float32Array, transcript: string | undefined): Promise<void> {
    if (transcript !== undefined) {
      if (!isConsentPhrase(transcript)) {
        throw unusableAudio(
          'consent_phrase_mismatch',
          'consent_transcript',
          `consent_transcript must be exactly: "${CONSENT_PHRASE}"`,
        )
      }
      return
    }
    try {
      const check = await this.deps.recognizer.checkPhrase(audio, CONSENT_PHRASE)
      if (!check.matched) {
        throw unusableAudio(
          'consent_phrase_mismatch',
          'recording',
          `The recording does not say the consent phrase. Heard: "${check.heard}". The owner must say exactly: "${CONSENT_PHRASE}"`,
        )
      }
    } catch (err) {
      if (err instanceof RecognizerUnavailableError) {
        throw recognitionUnavailable(
          `${err.message} Or send consent_transcript with the exact words of the recording.`,
        )
      }
      throw err
    }
  }

  /** Takes a cloning slot, or refuses with 429 when the queue is full or the wait too long. */
  private async cloningSlot(signal?: AbortSignal): Promise<Slot> {
    const admitted = await this.deps.cloning.acquire(CLONING_QUEUE, this.deps.cloningWaitMs, signal)
    if ('rejected' in admitted) throw customVoiceBusy()
    return admitted.slot
  }

  /**
   * A one-request clone (contract 4.2): prepared from the reference like a saved voice, never stored. It holds a
   * cloning slot for the whole request, released by the caller when the response ends.
   */
  async prepareReference(
    owner: string,
    ref: { audio: Uint8Array; transcript?: string; consentId?: string },
    signal?: AbortSignal,
  ): Promise<{ voice: { params: VoiceParams; language: string }; slot: Slot }> {
    const consent =
      ref.consentId === undefined ? null : await this.deps.store.getConsent(owner, ref.consentId)
    if (ref.consentId !== undefined && !consent) throw consentNotFound()
    const slot = await this.cloningSlot(signal)
    try {
      const audio = await this.decodeSample(ref.audio, 'reference_audio')
      if (consent) {
        this.requireVerifiableSpeech(audio, 'reference_audio')
        await this.verifySpeaker(consent.id, this.embedSample(audio, 'reference_audio'))
      }
      const language = consent?.language ?? 'en-US'
      const { params } = await prepareVoice(this.deps.synthesizer, {
        audio,
        sampleRate: RECOGNITION_SAMPLE_RATE,
        language,
        wordCount: await this.wordCount(audio, ref.transcript, signal),
      })
      return { voice: { params, language }, slot }
    } catch (err) {
      slot.release()
      throw err
    }
  }

  private async decodeSample(bytes: Uint8Array, param: string): Promise<Float32Array> {
    const audio = await decodeUpload(bytes, param, VOICE_SAMPLE_MAX_SECONDS)
    if (audio.length < VOICE_SAMPLE_MIN_SECONDS * RECOGNITION_SAMPLE_RATE) {
      throw unusableAudio(
        'invalid_audio',
        param,
        `${param} must hold at least ${VOICE_SAMPLE_MIN_SECONDS} s of speech.`,
      )
    }
    return audio
  }

  /**
   * A clip checked against a consent needs the voiced speech a consent recording needs (MIN_VERIFIED_SPEECH_SECONDS,
   * counted by the same screen): with less on either side the verifier refuses too many owners and lets more
   * impostors through to decide on (docs/voices-and-consents.md). Refused with what to record instead.
   */
  private requireVerifiableSpeech(audio: Float32Array, param: 'audio_sample' | 'reference_audio'): void {
    const { voicedSeconds } = this.deps.screen(audio)
    if (voicedSeconds >= MIN_VERIFIED_SPEECH_SECONDS) return
    const clip = param === 'audio_sample' ? 'The voice sample' : 'The reference audio'
    throw unusableAudio(
      'invalid_audio',
      param,
      `${clip} holds too little speech (${voicedSeconds.toFixed(1)} s of voice; at least ${MIN_VERIFIED_SPEECH_SECONDS} s is needed) to check that the consent's speaker is speaking. Record again for longer: several seconds of the same person talking steadily, close to the microphone.`,
    )
  }

  private embedSample(audio: Float32Array, param: string): Float32Array {
    const embedding = this.deps.embedder.embed(audio)
    if (!embedding) throw unusableAudio('invalid_audio', param, `${param} holds too little speech.`)
    return embedding
  }

  async createVoice(
    owner: string,
    fields: { name: string; consentId: string | null; transcript?: string },
    sample: Uint8Array,
    signal?: AbortSignal,
  ): Promise<VoiceRecord> {
    const { store, embedder } = this.deps
    const consent = fields.consentId === null ? null : await store.getConsent(owner, fields.consentId)
    if (fields.consentId !== null && !consent) throw consentNotFound()
    const slot = await this.cloningSlot(signal)
    try {
      const audio = await this.decodeSample(sample, 'audio_sample')
      if (consent) this.requireVerifiableSpeech(audio, 'audio_sample')
      const embedding = this.embedSample(audio, 'audio_sample')
      if (consent) await this.verifySpeaker(consent.id, embedding)
      const language = consent?.language ?? 'en-US'
      const prepared = await prepareVoice(this.deps.synthesizer, {
        audio,
        sampleRate: RECOGNITION_SAMPLE_RATE,
        language,
        wordCount: await this.wordCount(audio, fields.transcript, signal),
      })
      const voice = await store.createVoice(
        owner,
        {
          name: fields.name,
          consentId: consent?.id ?? null,
          language,
          preparedVersion: this.preparationVersion,
          params: prepared.params,
        },
        { audio, embedding, embedderVersion: embedder.version },
      )
      // The consent was deleted while this sample was being checked.
      if (!voice) throw consentNotFound()
      return voice
    } finally {
      slot.release()
    }
  }

  private async verifySpeaker(consentId: string, sample: Float32Array): Promise<void> {
    const reference = await this.consentEmbedding(consentId)
    const similarity = reference ? verificationScore(this.deps.embedder, reference, sample) : 0
    if (similarity < this.deps.verificationThreshold) {
      throw new ApiError(
        422,
        'envelope',
        "The sample's speaker does not match the consent recording's speaker.",
        'speaker_verification_failed',
        'audio_sample',
      )
    }
  }

  /** The consent's stored embedding, recomputed from its recording when the embedder has changed since. */
  private async consentEmbedding(consentId: string): Promise<Float32Array | null> {
    const stored = await this.deps.store.readArtifacts('consents', consentId)
    // Revoked since it was looked up.
    if (!stored) throw consentNotFound()
    if (stored.embedderVersion === this.deps.embedder.version) return stored.embedding
    return this.deps.embedder.embed(stored.audio)
  }

  /** Words in the clip for the speaking rate: the supplied transcript, else what the recognizer hears, if it can. */
  private async wordCount(audio: Float32Array, transcript: string | undefined, signal?: AbortSignal) {
    if (transcript !== undefined) return transcript.split(/\s+/).filter(Boolean).length
    if (!(await this.deps.recognizer.available())) return undefined
    const heard = await this.deps.recognizer.transcribe(audio, { signal })
    return heard.words.length
  }

  /**
   * A saved voice of `owner` ready for synthesis. A voice prepared by an older engine is prepared again from its
   * stored sample; when that outlasts the deadline the caller answers 503 and the preparation carries on, so a
   * retry finds it done. The id never changes.
   */
  async prepared(owner: string, id: string): Promise<PreparedResult> {
    const voice = await this.deps.store.getVoice(owner, id)
    if (!voice) throw voiceNotFound()
    if (voice.preparedVersion === this.preparationVersion)
      return { params: voice.params, language: voice.language }
    const params = await deadline(this.prepareAgain(voice), this.deps.preparationDeadlineMs)
    if (params === undefined) return { retryAfterSeconds: 5 }
    if (params === null) throw voiceNotFound()
    return { params, language: voice.language }
  }

  private prepareAgain(voice: VoiceRecord): Promise<VoiceParams | null> {
    let running = this.preparing.get(voice.id)
    if (!running) {
      running = (async () => {
        const artifacts = await this.deps.store.readArtifacts('voices', voice.id)
        // Revoked since it was looked up: it is simply gone.
        if (!artifacts) return null
        const { audio } = artifacts
        const { params } = await prepareVoice(this.deps.synthesizer, {
          audio,
          sampleRate: RECOGNITION_SAMPLE_RATE,
          language: voice.language,
          wordCount: await this.wordCount(audio, undefined),
        })
        return (await this.deps.store.updatePreparation(voice.id, this.preparationVersion, params))
          ? params
          : null
      })()
        // A preparation that fails leaves the voice as it was: not found for this request, tried again by the next.
        // A database that cannot answer is not "not found": that error reaches the caller (503).
        .catch((err: unknown) => {
          if (isStorageUnavailable(err)) throw err
          return null
        })
        .finally(() => this.preparing.delete(voice.id))
      this.preparing.set(voice.id, running)
    }
    return running
  }
}

/** The promise's value, or undefined once `ms` has passed (0: do not wait at all). */
async function deadline<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  if (ms <= 0) return undefined
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined)
  })
  try {
    return await Promise.race([work, expired])
  } finally {
    clearTimeout(timer)
  }
}

async function decodeUpload(bytes: Uint8Array, param: string, maxSeconds: number): Promise<Float32Array> {
  if (bytes.byteLength === 0) throw unusableAudio('invalid_audio', param, `${param} is empty.`)
  try {
    const decoded = await decodeAudio(bytes, {
      targetRate: RECOGNITION_SAMPLE_RATE,
      maxDurationSeconds: maxSeconds,
    })
    return decoded.samples
  } catch (err) {
    if (!(err instanceof AudioDecodeError)) throw err
    if (err.code === 'too_long') {
      throw unusableAudio(
        param === 'recording' ? 'recording_duration_out_of_range' : 'invalid_audio',
        param,
        `${param} is longer than ${param === 'recording' ? CONSENT_MAX_SECONDS : VOICE_SAMPLE_MAX_SECONDS} seconds.`,
      )
    }
    const reason =
      err.code === 'unsupported_format'
        ? 'is not in a supported format (WAV, MP3, OGG, AAC, FLAC, WebM or MP4)'
        : err.code === 'decoder_unavailable'
          ? 'uses a codec this deployment cannot decode'
          : 'could not be decoded (corrupt or truncated)'
    throw unusableAudio('invalid_audio', param, `${param} ${reason}.`)
  }
}
