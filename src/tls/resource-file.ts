import { readFile, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { OriginError } from '../errors/origin-error';

/**
 * Reads the file that the TLS option `option` names. An absolute `path` is read as it is (spec §2.4: "absolute
 * path, or … a file in the engine's resources directory"); a relative one resolves against `resourcesDirectory`
 * (`''` = the working directory) and must stay inside it, also after symbolic links are followed, so that a
 * config cannot reach `../../etc/…` through a relative path. The buffer belongs to the caller.
 *
 * @throws OriginError `ORIGIN_TLS_FILE_OUTSIDE_RESOURCES` when a relative path leads outside the directory;
 *   `ORIGIN_TLS_FILE_UNREADABLE` when the file (or the directory) cannot be read.
 */
export async function readResourceFile(
  resourcesDirectory: string,
  option: string,
  path: string,
): Promise<Buffer> {
  const unreadable = (error: unknown): OriginError =>
    new OriginError(
      'ORIGIN_TLS_FILE_UNREADABLE',
      { option, path, detail: error instanceof Error ? error.message : String(error) },
      { cause: error },
    );
  if (isAbsolute(path)) {
    try {
      return await readFile(path);
    } catch (error) {
      throw unreadable(error);
    }
  }
  const outside = (): OriginError =>
    new OriginError('ORIGIN_TLS_FILE_OUTSIDE_RESOURCES', {
      option,
      path,
      directory: resolve(resourcesDirectory),
    });
  const lexical = resolve(resourcesDirectory, path);
  if (leaves(resolve(resourcesDirectory), lexical)) throw outside();
  let base: string;
  let real: string;
  try {
    base = await realpath(resolve(resourcesDirectory));
    real = await realpath(lexical);
  } catch (error) {
    throw unreadable(error);
  }
  // A symbolic link inside the directory may still point outside it.
  if (leaves(base, real)) throw outside();
  try {
    return await readFile(real);
  } catch (error) {
    throw unreadable(error);
  }
}

function leaves(base: string, path: string): boolean {
  const rel = relative(base, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel);
}
