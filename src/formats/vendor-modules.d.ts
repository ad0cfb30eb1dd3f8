// Type declarations of the parts of untyped decompression packages this code uses (neither ships its own).

declare module 'seek-bzip' {
  /** An output the decoder writes byte by byte; a throw from `writeByte` stops the decoding and propagates. */
  interface ByteOutput {
    writeByte(byte: number): void;
  }
  const Bunzip: {
    /** Decodes a whole bzip2 input; with `multistream`, concatenated streams too. Throws on corrupt data. */
    decode(input: Uint8Array, output: ByteOutput, multistream?: boolean): void;
  };
  export default Bunzip;
}

declare module 'lzma-native' {
  /**
   * The native liblzma stream under lzma-native's Node stream wrapper. With `code(chunk, false)` it works
   * synchronously: `bufferHandler` is called during the call, with each output buffer (at most 64 KiB), with `null`
   * at the end of the stream, and with `err` on failure; a throw from the handler propagates out of `code`.
   */
  interface NativeStream {
    bufferHandler: (
      buf: Buffer | null | undefined,
      processedChunks: number | undefined,
      err: Error | null | undefined,
    ) => void;
    streamDecoder_(memlimit: number | null, flags: number): void;
    code(chunk: Uint8Array | null, async: boolean): void;
    resetUnderlying(): void;
  }
  const lzma: {
    Stream: new () => NativeStream;
    /** liblzma's LZMA_CONCATENATED: decode concatenated .xz streams as one, as `xz -d` does. */
    CONCATENATED: number;
  };
  export default lzma;
}
