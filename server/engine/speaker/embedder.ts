/**
 * The engine's speaker-embedding contract: a fixed-length vector per stretch of speech, compared by cosine
 * similarity. A classical MFCC-statistics embedding implements it today; an ONNX speaker model could replace it.
 * Audio is 16 kHz mono float in −1…1.
 */

export interface SpeakerEmbedder {
  /** Changes whenever embeddings from older versions are no longer comparable (stored voices are prepared again). */
  readonly version: string
  readonly dimension: number
  /** The embedding of the voiced part of `audio`, or null when it holds too little speech to say anything. */
  embed(audio: Float32Array): Float32Array | null
  /**
   * How strongly two of its embeddings speak for one person, compared with a deployment threshold from −1 to 1.
   * Cosine similarity when absent; an embedder may normalise the score (for example against a cohort).
   */
  score?(a: Float32Array, b: Float32Array): number
}

/** The verification score of two embeddings of `embedder`: its own score, else their cosine similarity. */
export function verificationScore(embedder: SpeakerEmbedder, a: Float32Array, b: Float32Array): number {
  return embedder.score ? embedder.score(a, b) : cosineSimilarity(a, b)
}

export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError('embeddings of different dimensions')
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number
    const y = b[i] as number
    dot += x * y
    na += x * x
    nb += y * y
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}
