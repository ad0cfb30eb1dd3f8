import type protobuf from 'protobufjs';
import type { DataFormat } from '../data-format';
import { loadMessageType } from './protobuf-descriptor';
import { ProtobufParser } from './protobuf-parser';
import { PROTOBUF_FORMAT_SCHEMA, type ProtobufFormatConfig } from './protobuf-options';

/**
 * The built-in `protobuf` format: each protobuf message of `messageType` becomes one record (see
 * `ProtobufParser`). `createParser` throws a `ConfigError` when the descriptor file or message type cannot
 * be used (see `loadMessageType`); the descriptor set is loaded once per path, and checked once per config
 * object.
 */
export const protobufFormat: DataFormat<ProtobufFormatConfig> = {
  name: 'protobuf',
  description:
    'Protobuf: messages of one type from a descriptor set, length-delimited (default) or one per body.',
  configSchema: PROTOBUF_FORMAT_SCHEMA,
  createParser: (config) => new ProtobufParser(messageTypeOf(config), config.delimitedMessages),
};

// An origin hands the same resolved config to the parser of every request: the descriptor path is checked (a
// realpath, one lstat per path component) and the type looked up once per config object, not once per request.
const messageTypes = new WeakMap<ProtobufFormatConfig, protobuf.Type>();

function messageTypeOf(config: ProtobufFormatConfig): protobuf.Type {
  let type = messageTypes.get(config);
  if (type === undefined) {
    type = loadMessageType(config.resourcesDirectory, config.protobufDescriptorFile, config.messageType);
    messageTypes.set(config, type);
  }
  return type;
}
