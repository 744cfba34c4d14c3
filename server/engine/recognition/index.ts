export {
  createPocketSphinxRecognizer,
  DEFAULT_PHRASE_THRESHOLD,
  type PocketSphinxOptions,
} from './pocketsphinx.ts'
export {
  type PhraseCheck,
  RECOGNITION_SAMPLE_RATE,
  type RecognizedWord,
  type RecognizeOptions,
  type Recognizer,
  RecognizerUnavailableError,
  type StreamingTranscriber,
  type Transcription,
  type WarmTranscriber,
} from './recognizer.ts'
export { type GroupOptions, groupSegments, type TranscriptSegment } from './segments.ts'
