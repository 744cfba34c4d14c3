/** The tag vocabulary of contract 2.7, typed for the markup stage; the lists themselves live in the shared schema. */
import { EMOTION_TAGS, SOUND_TAGS } from '../../../schema/markup.ts'

export type EmotionTag = (typeof EMOTION_TAGS)[number]
export type SoundTag = (typeof SOUND_TAGS)[number]

export type Tag = { kind: 'emotion'; tag: EmotionTag } | { kind: 'sound'; tag: SoundTag }

const isEmotion = (name: string): name is EmotionTag => (EMOTION_TAGS as readonly string[]).includes(name)
const isSound = (name: string): name is SoundTag => (SOUND_TAGS as readonly string[]).includes(name)

/** Reads a tag as the markup finder matched it ("[Sad]", "<LAUGH>"); tags are case-insensitive. */
export function classifyTag(written: string): Tag | undefined {
  const name = written.slice(1, -1).toLowerCase()
  if (written.startsWith('[') && isEmotion(name)) return { kind: 'emotion', tag: name }
  if (written.startsWith('<') && isSound(name)) return { kind: 'sound', tag: name }
  return undefined
}
