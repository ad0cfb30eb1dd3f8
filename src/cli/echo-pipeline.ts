import { SendResponse } from '../response/send-response';
import type { Pipeline } from '../pipeline/runner-pool';

const sendRecords = new SendResponse();
const sendErrorRecords = SendResponse.forErrors();

/**
 * The embedded default pipeline of `npm start` and the `rest-origin` CLI: every record goes back to the caller
 * through {@link SendResponse} (status 200), and every error record through its error form (status 500), which
 * is also the pipeline's error handling.
 */
export const echoPipeline: Pipeline = (batch) => {
  sendRecords.write(batch);
  sendErrorRecords.write(batch);
};
