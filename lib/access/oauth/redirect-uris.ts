/**
 * Redirect URIs. At registration a URI must be absolute, without a fragment (RFC 6749 §3.1.2), and
 * https, except on the loopback interface (http://localhost, 127.0.0.1, [::1], for native apps and
 * development, RFC 8252 §7.3) or a private-use scheme of a native app (`com.example.app:/callback`).
 * At authorization the client's `redirect_uri` must equal one registered URI character for character
 * (RFC 9700 §4.1.3: no pattern, prefix or normalisation), so a registered URI is kept exactly as given.
 */

export class RedirectUriError extends Error {
  override readonly name = 'RedirectUriError';
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_LENGTH = 2000;

/** Checks a URI given at registration; throws RedirectUriError naming the problem. */
export function checkRedirectUri(uri: string): string {
  if (uri.length > MAX_LENGTH) throw new RedirectUriError(`a redirect URI is at most ${MAX_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new RedirectUriError(`${uri} is not an absolute URI`);
  }
  if (uri.includes('#')) throw new RedirectUriError(`${uri}: a redirect URI has no fragment`);
  if ([...uri].some((c) => c <= ' ' || c === '\u007f')) throw new RedirectUriError(`${uri}: a redirect URI has no spaces or control characters`);
  if (url.protocol === 'https:') return uri;
  if (url.protocol === 'http:') {
    if (LOOPBACK.has(url.hostname)) return uri;
    throw new RedirectUriError(`${uri}: http is allowed for localhost, 127.0.0.1 and [::1] only; use https`);
  }
  if (['javascript:', 'data:', 'file:', 'blob:', 'vbscript:', 'about:', 'ftp:', 'ws:', 'wss:'].includes(url.protocol)) {
    throw new RedirectUriError(`${uri}: the ${url.protocol} scheme cannot be a redirect URI`);
  }
  // A native app's private-use scheme: reverse domain name, with a dot (RFC 8252 §7.1).
  if (!url.protocol.slice(0, -1).includes('.')) {
    throw new RedirectUriError(`${uri}: use https, http on localhost, or a private-use scheme such as com.example.app:/callback`);
  }
  return uri;
}

/** The registered URI that `given` is, or undefined: exact string comparison, nothing else. */
export function matchRedirectUri(registered: readonly string[], given: string): string | undefined {
  return registered.find((uri) => uri === given);
}
