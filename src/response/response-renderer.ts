import { jsonRenderer, renderJsonEnvelopeError, type RenderedResponse } from './json-response';
import type { HttpResponseConfig } from './response-options';
import type { ResponseSink } from '../pipeline/response-sink';
import { renderXmlEnvelopeError, renderXmlResponse, renderXmlResponseUnvalidated } from './xml-response';

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
  /** The envelope of a refused or failed request; `errorMessage` is `"<CODE> - <message>"`. */
  rejection(status: number, errorMessage: string): RenderedResponse;
}

/** The renderer for `config.dataFormat`. */
export function responseRendererFor(config: HttpResponseConfig): ResponseRenderer {
  if (config.dataFormat === 'json') {
    return {
      response: jsonRenderer(config),
      rejection: (status, message) => renderJsonEnvelopeError(status, message, config),
    };
  }
  const renderer: ResponseRenderer = {
    response: (sink) => renderXmlResponseUnvalidated(sink, config),
    rejection: (status, message) => renderXmlEnvelopeError(status, message, config),
  };
  return config.validateSchema
    ? { ...renderer, validated: (sink) => renderXmlResponse(sink, config) }
    : renderer;
}
