import { ApiError } from '../errors.ts'

/**
 * The answer to new work while the shared limits (Redis) cannot be reached: 503 with Retry-After in the contract's envelope
 * (section 7). Admitting the request uncounted would let every instance run unlimited work; refusing is what the
 * client already knows how to retry.
 */
export const limitsUnavailable = () =>
  new ApiError(
    503,
    'envelope',
    'The service cannot check its concurrency limits right now. Retry after the Retry-After delay.',
    'service_unavailable',
    null,
    'server_error',
    { 'retry-after': '2' },
  )
