/** Byte counts as people read them. */

const KIB = 1024
const MIB = 1024 * 1024

/**
 * A size in binary units, the units the service's limits are set in (25 MiB per upload, 10 MiB per reference clip):
 * "512 bytes", "40 KiB", "3.2 MiB", "25 MiB". Whole MiB show no decimal, so a limit reads as it is written; a size
 * just over a limit keeps its decimal ("25.1 MiB"), so it never reads as the limit itself.
 */
export function formatBytes(bytes: number): string {
  if (bytes < KIB) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`
  if (bytes < MIB) return `${Math.max(1, Math.round(bytes / KIB))} KiB`
  const mib = bytes / MIB
  if (Number.isInteger(mib)) return `${mib} MiB`
  // Rounding down past a limit would read as the limit: 25 MiB and a few bytes is "25.1 MiB", never "25.0 MiB".
  return `${(Math.ceil((bytes * 10) / MIB) / 10).toFixed(1)} MiB`
}
