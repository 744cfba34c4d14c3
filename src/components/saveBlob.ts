/** Saves `blob` through the browser's download (an anchor with `download` on an object URL). */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = fileName
  document.body.append(a)
  a.click()
  a.remove()
  // The download has started by now in every browser; a short grace keeps slow ones safe.
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
