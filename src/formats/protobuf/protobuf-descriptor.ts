import { readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import protobuf from 'protobufjs';
// Loaded for its side effect: it adds fromDescriptor to protobufjs's reflection classes.
// The explicit file: Node's ESM resolver does not import a directory, and protobufjs has no exports map.
import 'protobufjs/ext/descriptor/index.js';
// Its type declarations (fromDescriptor on Root and friends) come with the package name only.
import type {} from 'protobufjs/ext/descriptor';
import { ConfigError } from '../../errors/config-error';

// One loaded descriptor set per real path: every request makes a parser, and reading and compiling the set each
// time would cost more than the parse. Entries live as long as the process; a changed file needs a restart.
const roots = new Map<string, protobuf.Root>();

function problem(path: string, message: string): ConfigError {
  return new ConfigError([{ path, message }]);
}

/**
 * The message type `messageType` of the FileDescriptorSet at `descriptorFile`, which resolves against
 * `resourcesDirectory` (`''` = the working directory) and must lie inside it, after symbolic links are followed.
 * The set is read and compiled once per path and cached for the life of the process.
 *
 * Throws a {@link ConfigError} (`ORIGIN_CONFIG_INVALID`) when either option is empty, the path escapes the
 * resources directory, the file cannot be read or is not a FileDescriptorSet, or the set has no such message type.
 */
export function loadMessageType(
  resourcesDirectory: string,
  descriptorFile: string,
  messageType: string,
): protobuf.Type {
  const problems = [];
  if (descriptorFile === '') {
    problems.push({ path: '/protobufDescriptorFile', message: 'must name a descriptor file (.desc)' });
  }
  if (messageType === '') {
    problems.push({ path: '/messageType', message: 'must name a message type as <package>.<message>' });
  }
  if (problems.length > 0) throw new ConfigError(problems);

  let base: string;
  try {
    base = realpathSync(resolve(resourcesDirectory));
  } catch {
    throw problem('/resourcesDirectory', `cannot be read (${resolve(resourcesDirectory)})`);
  }
  const escapes = (path: string): boolean => {
    const rel = relative(base, path);
    return rel === '' || rel.startsWith('..') || isAbsolute(rel);
  };
  const lexical = resolve(base, descriptorFile);
  if (escapes(lexical)) throw problem('/protobufDescriptorFile', 'must be a file inside resourcesDirectory');
  let path: string;
  try {
    path = realpathSync(lexical);
  } catch {
    throw problem('/protobufDescriptorFile', `cannot be read (${lexical})`);
  }
  // A symbolic link inside the directory may still point outside it.
  if (escapes(path)) throw problem('/protobufDescriptorFile', 'must be a file inside resourcesDirectory');

  let root = roots.get(path);
  if (!root) {
    try {
      // keepCase: fields keep their descriptor names (snake_case), as the reference engine's records do.
      root = protobuf.Root.fromDescriptor(readFileSync(path), { keepCase: true });
      root.resolveAll();
    } catch (error) {
      throw problem(
        '/protobufDescriptorFile',
        `is not a readable FileDescriptorSet (${(error as Error).message})`,
      );
    }
    roots.set(path, root);
  }
  const found = root.lookup(messageType.replace(/^\./, ''));
  if (!(found instanceof protobuf.Type)) {
    throw problem('/messageType', `names no message type of the descriptor set: '${messageType}'`);
  }
  return found;
}
