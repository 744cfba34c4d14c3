export { planUtterance, type UtterancePart } from './plan.ts'
export { type RenderJob, renderPlan, soundPitchHz } from './render.ts'
export { type SoundOptions, synthesizeSound } from './sounds.ts'
export type { EmotionTag, SoundTag } from './tags.ts'
