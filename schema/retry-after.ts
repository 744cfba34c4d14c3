// re-export until server/speech|studio import core directly
export * from '../core/retry-after.ts'
