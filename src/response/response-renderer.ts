import { renderJsonEnvelopeError, renderJsonResponse, type RenderedResponse } from './json-response';
import type { HttpResponseConfig } from './response-options';
import type { ResponseSink } from '../pipeline/response-sink';
import { renderXmlEnvelopeError, renderXmlResponse } from './xml-response';

/**
 * How an origin renders its answers, chosen once from `httpResponse.dataFormat`. `response` is synchronous for
 * JSON (the hot path awaits nothing) and a promise for XML, whose schema validation runs off the main thread.
 */
export interface ResponseRenderer {
  response(sink: ResponseSink): RenderedResponse | Promise<RenderedResponse>;
  /** The envelope of a refused or failed request; `errorMessage` is `"<CODE> - <message>"`. */
  rejection(status: number, errorMessage: string): RenderedResponse;
}

/** The renderer for `config.dataFormat`. */
export function responseRendererFor(config: HttpResponseConfig): ResponseRenderer {
  return config.dataFormat === 'xml'
    ? {
        response: (sink) => renderXmlResponse(sink, config),
        rejection: (status, message) => renderXmlEnvelopeError(status, message, config),
      }
    : {
        response: (sink) => renderJsonResponse(sink, config),
        rejection: (status, message) => renderJsonEnvelopeError(status, message, config),
      };
}
