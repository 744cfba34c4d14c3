import { constants } from 'node:fs'
import { access } from 'node:fs/promises'
import { join } from 'node:path'
import { RecognizerUnavailableError } from './recognizer.ts'

/** Where the Debian packages pocketsphinx and pocketsphinx-en-us put the decoder and the US English model. */
const DEFAULT_BINARY = '/usr/bin/pocketsphinx_batch'
const DEFAULT_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us'

export interface PocketSphinxInstall {
  /** The `pocketsphinx_batch` executable. */
  binary: string
  /** Acoustic model directory (`-hmm`). */
  acousticModel: string
  /** Binary trigram language model (`-lm`). */
  languageModel: string
  /** Pronunciation dictionary (`-dict`). */
  dictionary: string
}

/** The given paths, else where the Debian packages put them (the launcher passes POCKETSPHINX_*: server/config.ts). */
export function resolveInstall(opts: { binary?: string; modelDir?: string }): PocketSphinxInstall {
  const binary = opts.binary ?? DEFAULT_BINARY
  const modelDir = opts.modelDir ?? DEFAULT_MODEL_DIR
  return {
    binary,
    acousticModel: join(modelDir, 'en-us'),
    languageModel: join(modelDir, 'en-us.lm.bin'),
    dictionary: join(modelDir, 'cmudict-en-us.dict'),
  }
}

/** The files a decode opens; a missing one would make PocketSphinx fail mid-way with a less clear message. */
function requiredFiles(install: PocketSphinxInstall): string[] {
  const { acousticModel } = install
  return [
    install.languageModel,
    install.dictionary,
    ...['mdef', 'means', 'variances', 'transition_matrices', 'sendump', 'feat.params', 'noisedict'].map((f) =>
      join(acousticModel, f),
    ),
  ]
}

/** The first missing piece of the install, or null when the decoder can run. */
export async function findMissing(install: PocketSphinxInstall): Promise<string | null> {
  const present = async (path: string, mode: number) =>
    access(path, mode).then(
      () => true,
      () => false,
    )
  if (!(await present(install.binary, constants.X_OK))) return install.binary
  for (const file of requiredFiles(install)) {
    if (!(await present(file, constants.R_OK))) return file
  }
  return null
}

export async function assertInstalled(install: PocketSphinxInstall): Promise<void> {
  const missing = await findMissing(install)
  if (missing) {
    throw new RecognizerUnavailableError(
      `Speech recognition is not installed: ${missing} is missing. Install the Debian packages pocketsphinx and pocketsphinx-en-us (or set POCKETSPHINX_BIN and POCKETSPHINX_MODEL_DIR).`,
    )
  }
}
