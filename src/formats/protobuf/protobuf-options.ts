import type { JsonSchema } from '../data-format';

/** The Protobuf format's options (`dataFormat.protobuf`) with defaults applied. */
export interface ProtobufFormatConfig {
  /** FileDescriptorSet (`protoc --descriptor_set_out --include_imports`), relative to `resourcesDirectory`. */
  readonly protobufDescriptorFile: string;
  /** Fully qualified message type, `<package>.<message>`. */
  readonly messageType: string;
  /** True: varint length-prefixed messages, many per body; false: the whole body is one message. */
  readonly delimitedMessages: boolean;
  /** Directory the descriptor file must lie in; `''` is the process's working directory. */
  readonly resourcesDirectory: string;
}

/** JSON Schema of {@link ProtobufFormatConfig}; every option has a default. */
export const PROTOBUF_FORMAT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    protobufDescriptorFile: {
      type: 'string',
      default: '',
      description:
        'Protobuf Descriptor File: a FileDescriptorSet (.desc, from protoc --descriptor_set_out --include_imports), resolved against resourcesDirectory and required to lie inside it. Required.',
    },
    messageType: {
      type: 'string',
      default: '',
      description:
        'Message Type: fully qualified name <package>.<message> of a message in the descriptor set. Required.',
    },
    delimitedMessages: {
      type: 'boolean',
      default: true,
      description:
        'Delimited Messages: true reads many varint length-prefixed messages per body; false reads the whole body as one message.',
    },
    resourcesDirectory: {
      type: 'string',
      default: '',
      description:
        "Addition: the resources directory that protobufDescriptorFile resolves in; '' is the process's working directory. A descriptor path that leads outside it is a config error.",
    },
  },
};
