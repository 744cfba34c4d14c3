import { closeSync, fsyncSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { openPrivate, privateDir } from '../../storage/private-files.ts'

/**
 * The files behind consents and saved voices: `<root>/consents/<id>/` and `<root>/voices/<id>/`, each holding raw
 * 16 kHz float32 audio and the embedding. A directory is written whole under `staging/` and renamed into place
 * before its database row is committed, and removed only after its row is gone; `sweep` removes whatever a crash
 * left between those steps, so after a restart every row has its directory and every directory its row.
 */
export type ArtifactKind = 'consents' | 'voices'

export class VoiceFiles {
  constructor(private readonly root: string) {
    // Recordings, samples and embeddings are biometric data: folders 0700, files 0600 (server/storage/private-files.ts).
    privateDir(root)
    for (const dir of ['staging', 'consents', 'voices']) privateDir(join(root, dir))
  }

  dir(kind: ArtifactKind, id: string): string {
    return join(this.root, kind, id)
  }

  /** Writes every file durably into a staging directory, then moves it into place in one rename. */
  publish(kind: ArtifactKind, id: string, files: Record<string, Uint8Array>): void {
    const staging = join(this.root, 'staging', id)
    privateDir(staging)
    try {
      for (const [name, bytes] of Object.entries(files)) writeDurably(join(staging, name), bytes)
      renameSync(staging, this.dir(kind, id))
    } catch (err) {
      rmSync(staging, { recursive: true, force: true })
      throw err
    }
  }

  remove(kind: ArtifactKind, id: string): void {
    rmSync(this.dir(kind, id), { recursive: true, force: true })
  }

  read(kind: ArtifactKind, id: string, name: string): Promise<Buffer> {
    return readFile(join(this.dir(kind, id), name))
  }

  list(kind: ArtifactKind): string[] {
    return readdirSync(join(this.root, kind))
  }

  /** Removes staging leftovers and every directory whose id `keep` does not know. */
  sweep(keep: (kind: ArtifactKind, id: string) => boolean): void {
    rmSync(join(this.root, 'staging'), { recursive: true, force: true })
    privateDir(join(this.root, 'staging'))
    for (const kind of ['consents', 'voices'] as const) {
      for (const id of this.list(kind)) if (!keep(kind, id)) this.remove(kind, id)
    }
  }
}

function writeDurably(path: string, bytes: Uint8Array): void {
  const fd = openPrivate(path)
  try {
    writeSync(fd, bytes)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

export const floatBytes = (samples: Float32Array): Uint8Array =>
  new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength)

export function bytesToFloats(bytes: Buffer): Float32Array {
  // A copy: Buffer slices from the pool may not be 4-byte aligned.
  const out = new Float32Array(bytes.byteLength / 4)
  new Uint8Array(out.buffer).set(bytes)
  return out
}
