/**
 * rest-service-origin/testing: test a pipeline, a config or a host's format against the origin's whole request
 * path without opening a port.
 *
 * @packageDocumentation
 */
export {
  createTestOrigin,
  type InjectRequest,
  type InjectedResponse,
  type TestOrigin,
  type TestOriginOptions,
} from './test-origin';
