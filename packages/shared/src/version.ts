/**
 * The API's version (semver), served as the OpenAPI document's `info.version` and in every response's `API-Version`
 * header, and exported by the SDK as the version it was built against. An additive change bumps the minor, a fix of
 * the document or of behaviour that was never promised bumps the patch; a breaking change would be a new major served
 * under its own path prefix (`/v2/...`), next to this one (docs/decisions.md, "Versioning").
 */
export const API_VERSION = "1.4.0";

/**
 * Calls a tRPC batch may hold by default (the server's MAX_BATCH_CALLS; more is refused whole with 413): the SDK
 * splits its batches at this size.
 */
export const DEFAULT_MAX_BATCH_CALLS = 50;
