import {
  jsonPieceRenderer,
  jsonRenderer,
  renderJsonEnvelopeError,
  type RenderedPieces,
  type RenderedResponse,
} from './json-response';
import type { HttpResponseConfig } from './response-options';
import type { ResponseSink } from '../pipeline/response-sink';
import { renderXmlEnvelopeError, renderXmlResponse, renderXmlResponseUnvalidated } from './xml-response';
import { loadXmlSchema, type LoadedXmlSchema } from './xml-schema';

/**
 * How an origin renders its answers, chosen once from `httpResponse`. Rendering is synchronous (the hot path
 * awaits nothing); only XML schema validation, which runs off the main thread, is a separate asynchronous step,
 * present only when it is configured.
 */
export interface ResponseRenderer {
  /** Renders the response to a batch; for a renderer with {@link validated}, not used for batches. */
  response(sink: ResponseSink): RenderedResponse;
  /**
   * Present only when responses must be validated before they are sent (`validateSchema`): renders and
   * validates; an invalid response is never returned.
   */
  readonly validated?: (sink: ResponseSink) => Promise<RenderedResponse>;
  /**
   * Present when the renderer can render a response in pieces (JSON): the same body as {@link response}, a slice
   * of records at a time, for responses too large to render in one step (decision 0090).
   */
  readonly pieces?: (sink: ResponseSink) => RenderedPieces;
  /** The envelope of a refused or failed request; `errorMessage` is `"<CODE> - <message>"`. */
  rejection(status: number, errorMessage: string): RenderedResponse;
  /**
   * Present when the renderer reads files before it can render (the XML schema and its imports): `start()`
   * awaits it so that a broken schema fails the start, not every request. Renderers also prepare on first use,
   * for hosts that call `handleRequest` without `start()`.
   *
   * @throws ConfigError when the schema does not compile or an import cannot be read.
   */
  readonly prepare?: () => Promise<void>;
}

/** Records per piece of a response rendered in pieces: a few hundred microseconds of rendering each. */
const PIECE_RECORDS = 512;

/** The renderer for `config.dataFormat`; `resourcesDirectory` is where the XML schema's imports are read. */
export function responseRendererFor(config: HttpResponseConfig, resourcesDirectory = ''): ResponseRenderer {
  if (config.dataFormat === 'json') {
    return {
      response: jsonRenderer(config),
      pieces: jsonPieceRenderer(config, PIECE_RECORDS),
      rejection: (status, message) => renderJsonEnvelopeError(status, message, config),
    };
  }
  const renderer: ResponseRenderer = {
    response: (sink) => renderXmlResponseUnvalidated(sink, config),
    rejection: (status, message) => renderXmlEnvelopeError(status, message, config),
  };
  if (!config.validateSchema) return renderer;
  let schema: Promise<LoadedXmlSchema> | undefined;
  const loaded = (): Promise<LoadedXmlSchema> =>
    (schema ??= loadXmlSchema(config.xmlSchema, resourcesDirectory));
  return {
    ...renderer,
    prepare: async () => {
      await loaded();
    },
    validated: async (sink) => {
      const { schema: xmlSchema, imports } = await loaded();
      return renderXmlResponse(sink, { ...config, xmlSchema, xmlSchemaImports: imports });
    },
  };
}
