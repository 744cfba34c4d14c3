/**
 * The engine's speaker-segmentation contract: a model that hears a short window of 16 kHz mono audio and says, frame
 * by frame, which of a few *local* speakers talk (two at once where they overlap). Speaker k of one window is not
 * speaker k of the next; linking windows into the recording's speakers is the diarizer's work (diarization/).
 */

export interface SegmenterInfo {
  /** Samples in one window (16 kHz). */
  readonly windowSamples: number
  /** Output frames per window. */
  readonly frames: number
  /** Local speakers per window. */
  readonly speakers: number
  /** Seconds from one frame's start to the next's; frame f covers [f·step, f·step + duration) of its window. */
  readonly frameStep: number
  readonly frameDuration: number
}

/** One window's decoded activity: frames × speakers, 0 or 1, row-major. */
export interface LocalActivity {
  /** Who the model hears in each frame, by its own decoding (no speaker at all where it hears nobody). */
  active: Uint8Array
  /** Who it would hear were the frame known to hold speech: the most likely non-empty set of speakers. */
  activeIfSpeech: Uint8Array
}

export interface Segmenter extends SegmenterInfo {
  /**
   * The activity of each window, in order. Each window holds `windowSamples` samples (shorter ones are padded with
   * silence at the end).
   */
  segment(windows: readonly Float32Array[], signal?: AbortSignal): Promise<LocalActivity[]>
}
