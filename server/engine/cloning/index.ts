export { FormantWarper, warpFormants } from './envelope.ts'
export {
  espeakLanguage,
  PREPARATION_VERSION,
  type PreparedVoice,
  type PrepareInput,
  prepareVoice,
} from './prepare.ts'
