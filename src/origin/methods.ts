/**
 * Methods refused with 405 (DESIGN.md §6): TRACE and TRACK would reflect a request (cross-site tracing), CONNECT
 * would make the origin a tunnel. Every other method goes to the pipeline.
 */
export const REFUSED_METHODS: ReadonlySet<string> = new Set(['TRACE', 'TRACK', 'CONNECT']);

/** The `Allow` header of a 405 answer. */
export const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
