// re-export until server/speech|studio import core directly
export * from '../core/bytes.ts'
