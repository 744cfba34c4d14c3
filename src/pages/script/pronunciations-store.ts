import { create } from 'zustand'
import {
  type ModelId,
  type Pronunciation,
  phonemesHonoured,
  type UpstreamKind,
} from '../../../schema/index.ts'
import { applyPronunciations, buildLexicon, type Lexicon } from './pronounce.ts'

/**
 * The studio's pronunciations as the script page holds them: the entries the backend keeps (loaded and kept current by
 * the Pronunciations panel) compiled once into a lexicon, and where the speech service runs, which decides whether
 * phonemes are sent (schema/pronunciations.ts `PHONEME_INPUT`).
 */

interface PronunciationsState {
  entries: readonly Pronunciation[]
  lexicon: Lexicon<Pronunciation>
  upstream: UpstreamKind | undefined
  setEntries(entries: readonly Pronunciation[]): void
  setUpstream(upstream: UpstreamKind | undefined): void
}

export const usePronunciations = create<PronunciationsState>((set) => ({
  entries: [],
  lexicon: buildLexicon<Pronunciation>([]),
  upstream: undefined,
  setEntries: (entries) => set({ entries, lexicon: buildLexicon(entries) }),
  setUpstream: (upstream) => set({ upstream }),
}))

/**
 * The text a line is sent as: every request of the page (previews, "Play script", takes, the final render) asks here,
 * so they all say the same. The take keeps the line's own text.
 */
export function spokenInput(text: string, model: ModelId): string {
  const { lexicon, upstream } = usePronunciations.getState()
  return applyPronunciations(text, lexicon, phonemesHonoured(upstream, model))
}
