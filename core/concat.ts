/** The typed arrays `concat` joins. */
export type TypedArray =
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array

/**
 * One array holding `parts` end to end, in order: PCM16 chunks, float samples, bytes. `Type` is the result's
 * constructor (`Int16Array`, `Float32Array`, …), so no parts at all still makes an empty array of the right kind.
 */
export function concat<T extends TypedArray>(parts: readonly T[], Type: new (length: number) => T): T {
  let length = 0
  for (const part of parts) length += part.length
  const out = new Type(length)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}
