/**
 * Client credentials of a request (RFC 6749 §2.3.1): HTTP Basic with the form-urlencoded id and
 * secret, or `client_id` (and `client_secret`) in the form, never both methods at once.
 */
export type ClientCredentials =
  | { ok: true; clientId: string; clientSecret?: string; basic: boolean }
  | { ok: false; message: string };

/** The challenge of a 401 to a client that authenticated with HTTP Basic (RFC 6749 §5.2), at the token and revocation endpoints alike. */
export const BASIC_CHALLENGE = 'Basic realm="oauth"';

const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));

export function clientCredentials(headers: Record<string, string>, form: URLSearchParams): ClientCredentials {
  const authorization = headers.authorization ?? '';
  if (authorization.toLowerCase().startsWith('basic ')) {
    if (form.has('client_secret')) return { ok: false, message: 'authenticate with HTTP Basic or client_secret, not both' };
    let decoded: string;
    try {
      decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    } catch {
      return { ok: false, message: 'the Basic credentials are malformed' };
    }
    const colon = decoded.indexOf(':');
    if (colon < 1) return { ok: false, message: 'the Basic credentials are malformed' };
    try {
      const clientId = formDecode(decoded.slice(0, colon));
      const clientSecret = formDecode(decoded.slice(colon + 1));
      if (form.has('client_id') && form.get('client_id') !== clientId) return { ok: false, message: 'client_id differs from the Basic credentials' };
      return { ok: true, clientId, clientSecret, basic: true };
    } catch {
      return { ok: false, message: 'the Basic credentials are malformed' };
    }
  }
  const clientId = form.get('client_id');
  if (!clientId) return { ok: false, message: 'client_id is required (or HTTP Basic client authentication)' };
  return { ok: true, clientId, clientSecret: form.get('client_secret') ?? undefined, basic: false };
}
