// re-export until server/speech|studio import core directly
export * from '../core/phrase-buffer.ts'
