/** Stable codes for statuses raised outside our own DomainErrors (framework, parsers, guards). */
export const DEFAULT_CODE_BY_STATUS: Record<number, string> = {
  400: 'invalid_field',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'invalid_field',
  429: 'rate_limited',
  501: 'not_implemented',
  502: 'upstream_error',
  503: 'unavailable',
};
