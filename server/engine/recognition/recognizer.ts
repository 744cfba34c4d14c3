/**
 * The engine's recognition contract. CMU PocketSphinx (a subprocess against the Debian model) implements it today;
 * a neural recognizer could replace it without touching the routes. Audio is always 16 kHz mono float in −1…1.
 */

export const RECOGNITION_SAMPLE_RATE = 16_000

export interface RecognizedWord {
  /** The word as the recognizer spells it (lower case for PocketSphinx), without pronunciation variant markers. */
  text: string
  /** Seconds from the start of the audio given. */
  start: number
  end: number
  /** 0…1; 1 when the engine gives no confidence. */
  confidence: number
}

export interface WordSpan {
  start: number
  end: number
}

export interface Transcription {
  words: RecognizedWord[]
  /** The words joined by single spaces. */
  text: string
}

/** How well a recording matches one known phrase (the consent check). */
export interface PhraseCheck {
  matched: boolean
  /** What the recognizer heard, for the error message and the logs. */
  heard: string
  /** 0…1 agreement between the phrase and what was heard; `matched` is `score >= threshold`. */
  score: number
}

export interface RecognizeOptions {
  signal?: AbortSignal
  /**
   * Seconds into the audio, in increasing order, where the recognizer must end an utterance: no word is recognized
   * across one (a caller's cuts at pauses, so that its segments end there). Only `transcribe` uses them.
   */
  boundaries?: readonly number[]
}

export interface Recognizer {
  readonly name: string
  /** Whether the engine and its model are installed here. When false every call fails with RecognizerUnavailableError. */
  available(): Promise<boolean>
  /** Open transcription (US English). */
  transcribe(audio: Float32Array, opts?: RecognizeOptions): Promise<Transcription>
  /** Checks that `audio` holds `phrase`, decoding constrained to suit a known phrase. */
  checkPhrase(audio: Float32Array, phrase: string, opts?: RecognizeOptions): Promise<PhraseCheck>
  /**
   * Optional: forced alignment. Where in `audio` each of `words` (as written: "42", "Zoë,") was said, one span per
   * word in seconds, or null when the audio cannot be made to hold them. Without it, callers time words otherwise.
   */
  align?(audio: Float32Array, words: readonly string[], opts?: RecognizeOptions): Promise<WordSpan[] | null>
  /**
   * Optional: a decoder kept loaded for one caller's many short `transcribe` calls (a realtime session's live words),
   * so that each costs its decoding only; it starts loading at once. The caller closes it. Without it, callers use
   * `transcribe`.
   */
  warm?(): WarmTranscriber
  /**
   * Optional: a decoder fed audio as it arrives (a realtime session's live words), so that each second is decoded
   * once however often the caller asks for the words so far; it starts loading at once. Null when it cannot run here
   * (callers then decode again with `warm` or `transcribe`). The caller closes it.
   */
  stream?(): StreamingTranscriber | null
  close(): Promise<void>
}

/** What `Recognizer.warm` returns. */
export interface WarmTranscriber {
  transcribe(audio: Float32Array, opts?: RecognizeOptions): Promise<Transcription>
  close(): Promise<void>
}

/** What `Recognizer.stream` returns. Audio is decoded as one utterance from `restart` to the next. */
export interface StreamingTranscriber {
  /** Ends the utterance going on, dropping its words; the audio pushed next starts a new one. */
  restart(): void
  /** More audio of the utterance going on. */
  push(audio: Float32Array): void
  /**
   * The best words so far of the utterance going on, in seconds from its first sample, once every sample pushed
   * before the call is decoded. Fails when the decoder has failed or is closed.
   */
  hypothesis(): Promise<Transcription>
  close(): Promise<void>
}

/** The recognizer or its model is not installed; callers fail closed and say what to install. */
export class RecognizerUnavailableError extends Error {
  constructor(
    message = 'Speech recognition is not installed: install the Debian packages pocketsphinx and pocketsphinx-en-us.',
  ) {
    super(message)
  }
}
