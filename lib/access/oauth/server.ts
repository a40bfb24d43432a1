/**
 * The OAuth 2.0 authorization server's protocol engine.
 *
 * Library: @node-oauth/oauth2-server 5.3.0 (MIT, maintained by the node-oauth organisation, three
 * small dependencies, storage-agnostic: it keeps nothing in memory and calls a "model" we write over
 * the state table, which is what stateless Lambda functions need). It does here:
 * - the token endpoint (RFC 6749 §4.1.3, §6): client authentication by HTTP Basic or form fields, the
 *   `authorization_code` grant (code looked up, consumed before anything else is checked, PKCE S256
 *   verified in constant time, `redirect_uri` compared), the `refresh_token` grant with rotation
 *   (`alwaysIssueNewRefreshToken`; the scope checked before the token is spent, `RefreshGrant`),
 *   scope narrowing on refresh, and §5.1/§5.2 answers
 *   (`Cache-Control: no-store`, `invalid_request`, `invalid_client`, `invalid_grant`,
 *   `unauthorized_client`, `unsupported_grant_type`, `invalid_scope`);
 * - issuing the code once the user approved (authorize handler: client and redirect URI checked again,
 *   code made and saved, redirect with `code` and `state`).
 * What it lacks, written here on the same model: the implicit grant (its `token` response type is
 * commented out and throws "Not implemented" in 5.3.0), token revocation (RFC 7009: no handler), the
 * sign-in and consent pages (it leaves user authentication to the application), reuse detection of
 * codes and rotated refresh tokens, and PKCE being required for public clients (lib/access/oauth/pkce.ts).
 *
 * Considered and not taken: oidc-provider 9 (an OpenID Provider on Koa with its own session and
 * interaction model; it refuses `response_type=token` alone, so no OAuth 2.0 implicit grant, and it
 * is several times larger); oauth4webapi and openid-client (clients, not servers: the e2e tests use
 * oauth4webapi as the standard client); jose (JWTs: access tokens here are opaque random strings
 * looked up by hash, so that revocation takes effect on the next request).
 */
import OAuth2Server from '@node-oauth/oauth2-server';
import { BASIC_CHALLENGE, clientCredentials } from './client-auth.js';
import AuthorizationCodeGrantType from '@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type.js';
import RefreshTokenGrantType from '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type.js';
import type { ClientRecord, OAuthClients } from './clients.js';
import { subjectOf, type Subject, type TokenStore } from './tokens.js';

const { InvalidGrantError, InvalidRequestError, OAuthError, Request, Response, UnsupportedGrantTypeError } = OAuth2Server;

/** What the library carries as "user": the subject, plus the family its tokens join once known. */
interface ModelUser extends Subject {
  familyId?: string;
  /** Set when the authorization request named redirect_uri (the token request must then repeat it). */
  redirectUriInRequest?: boolean;
}

/** The library's own password and client_credentials grants are not offered here (see `NotOffered`). */
const NOT_OFFERED = ['password', 'client_credentials'];
const GRANTS = ['authorization_code', 'refresh_token', ...NOT_OFFERED];
const libraryClient = (client: ClientRecord): OAuth2Server.Client => ({ id: client.id, redirectUris: client.redirectUris, grants: GRANTS });
const clientRef = (id: string): OAuth2Server.Client => ({ id, grants: GRANTS });
/** The scope, client and user of a stored code or token, as the library wants them. */
const parties = (record: { scopes: string[]; clientId: string }, user: ModelUser) => ({ scope: record.scopes, client: clientRef(record.clientId), user });

/**
 * The model over the state table. `authenticateClients`: the token endpoint's model checks client
 * secrets; the authorize endpoint's (which knows only the client id) does not.
 */
function model(clients: OAuthClients, tokens: TokenStore, authenticateClients: boolean) {
  return {
    async getClient(clientId: string, clientSecret: string | null | undefined) {
      const client = authenticateClients ? await clients.authenticate(clientId, clientSecret ?? undefined) : await clients.get(clientId);
      return client ? libraryClient(client) : undefined;
    },
    async validateRedirectUri(redirectUri: string, client: OAuth2Server.Client) {
      return Array.isArray(client.redirectUris) && client.redirectUris.includes(redirectUri);
    },
    // The scopes reaching the library were checked and narrowed to the user's approval already.
    async validateScope(_user: OAuth2Server.User, _client: OAuth2Server.Client, scope?: string[]) {
      return scope?.length ? scope : undefined;
    },
    async generateAuthorizationCode() {
      return tokens.newSecret('code');
    },
    async generateAccessToken() {
      return tokens.newSecret('access');
    },
    async generateRefreshToken() {
      return tokens.newSecret('refresh');
    },
    async saveAuthorizationCode(
      code: Pick<OAuth2Server.AuthorizationCode, 'authorizationCode' | 'expiresAt' | 'redirectUri' | 'scope' | 'codeChallenge' | 'codeChallengeMethod'>,
      client: OAuth2Server.Client,
      user: OAuth2Server.User,
    ) {
      const who = user as ModelUser;
      const { redirectUri, scope = [], codeChallenge, codeChallengeMethod } = code;
      const saved = { redirectUri, redirectUriInRequest: who.redirectUriInRequest ?? true, scopes: scope, codeChallenge, codeChallengeMethod };
      await tokens.saveCode(code.authorizationCode, who, saved);
      return { ...code, client, user };
    },
    async getAuthorizationCode(authorizationCode: string): Promise<OAuth2Server.AuthorizationCode | undefined> {
      const record = await tokens.findCode(authorizationCode);
      if (!record) return undefined;
      return {
        authorizationCode,
        expiresAt: new Date(record.validUntil * 1000),
        // Empty: the authorization request had no redirect_uri, so the token request need not repeat it.
        redirectUri: record.redirectUriInRequest ? record.redirectUri : '',
        ...parties(record, subjectOf(record)),
        ...(record.codeChallenge ? { codeChallenge: record.codeChallenge, codeChallengeMethod: record.codeChallengeMethod } : {}),
      };
    },
    async revokeAuthorizationCode(code: OAuth2Server.AuthorizationCode) {
      const familyId = await tokens.consumeCode(code.authorizationCode);
      if (!familyId) return false;
      (code.user as ModelUser).familyId = familyId;
      return true;
    },
    async saveToken(token: OAuth2Server.Token, client: OAuth2Server.Client, user: OAuth2Server.User) {
      const who = user as ModelUser;
      if (!who.familyId) throw new Error('saveToken without a token family');
      await tokens.saveTokens(who, who.familyId, token.scope ?? [], {
        accessToken: token.accessToken,
        accessTokenExpiresAt: token.accessTokenExpiresAt!,
        refreshToken: token.refreshToken,
        refreshTokenExpiresAt: token.refreshTokenExpiresAt,
      });
      return { ...token, client, user };
    },
    async getRefreshToken(refreshToken: string): Promise<OAuth2Server.RefreshToken | undefined> {
      const found = await tokens.findRefreshToken(refreshToken);
      // The family goes along, so the rotated tokens join it.
      return found && { refreshToken, refreshTokenExpiresAt: new Date(found.expiresAt * 1000), ...parties(found, { ...subjectOf(found), familyId: found.familyId }) };
    },
    async revokeToken(token: OAuth2Server.RefreshToken | OAuth2Server.Token) {
      return token.refreshToken ? tokens.rotateRefreshToken(token.refreshToken) : false;
    },
    async getAccessToken(accessToken: string): Promise<OAuth2Server.Token | undefined> {
      const grant = await tokens.verifyAccessToken(accessToken);
      if (!grant) return undefined;
      return { accessToken, scope: grant.scopes, client: clientRef(grant.clientId), user: subjectOf(grant) };
    },
  };
}

/**
 * RFC 6749 §5.2: a `redirect_uri` that differs from the authorization request's is `invalid_grant`
 * (the library says `invalid_request`); a missing one stays `invalid_request`.
 */
class CodeGrant extends AuthorizationCodeGrantType {
  override validateRedirectUri(request: OAuth2Server.Request, code: OAuth2Server.AuthorizationCode): void {
    try {
      super.validateRedirectUri(request, code);
    } catch (err) {
      const given = (request.body as Record<string, unknown> | undefined)?.redirect_uri;
      if (err instanceof InvalidRequestError && typeof given === 'string' && given !== '') {
        throw new InvalidGrantError('Invalid grant: `redirect_uri` differs from the authorization request');
      }
      throw err;
    }
  }
}

/**
 * The library spends (rotates away) the refresh token before it checks the requested scope, so a
 * request for a wider, unknown or malformed scope answered `invalid_scope` had already revoked the
 * token, and its next use looked like a stolen token's reuse and ended the whole authorization. Here
 * the scope is checked first: a refused request changes nothing.
 */
class RefreshGrant extends RefreshTokenGrantType {
  override async handle(request: OAuth2Server.Request, client: OAuth2Server.Client): Promise<OAuth2Server.Token> {
    const token = await this.getRefreshToken(request, client);
    const scope = this.getScope(request, token);
    await this.revokeToken(token);
    return this.saveToken(token.user, client, scope);
  }
}

/**
 * The library always offers the password and client_credentials grants; this server does not, so they
 * answer `unsupported_grant_type` (RFC 6749 §5.2) instead of the library's `unauthorized_client`.
 */
class NotOffered extends OAuth2Server.AbstractGrantType {
  async handle(request: OAuth2Server.Request): Promise<OAuth2Server.Token> {
    throw new UnsupportedGrantTypeError(`Unsupported grant type: \`${String(request.body?.grant_type)}\` is not offered`);
  }
}

export interface OAuthAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export class OAuthServer {
  readonly #token: OAuth2Server;
  readonly #authorize: OAuth2Server;

  constructor(clients: OAuthClients, tokens: TokenStore) {
    const { lifetimes } = tokens;
    this.#token = new OAuth2Server({
      model: model(clients, tokens, true),
      accessTokenLifetime: lifetimes.accessSeconds,
      refreshTokenLifetime: lifetimes.refreshSeconds,
      alwaysIssueNewRefreshToken: true,
      // Public clients send only client_id (with PKCE); the model still demands a confidential client's secret.
      requireClientAuthentication: { authorization_code: false, refresh_token: false },
      extendedGrantTypes: {
        authorization_code: CodeGrant as unknown as typeof OAuth2Server.AbstractGrantType,
        refresh_token: RefreshGrant as unknown as typeof OAuth2Server.AbstractGrantType,
        ...Object.fromEntries(NOT_OFFERED.map((grant) => [grant, NotOffered as unknown as typeof OAuth2Server.AbstractGrantType])),
      },
    });
    this.#authorize = new OAuth2Server({
      model: model(clients, tokens, false),
      authorizationCodeLifetime: lifetimes.codeSeconds,
      allowEmptyState: true,
    });
  }

  /**
   * POST /oauth/token with the form's fields. Answers §5.1 or §5.2; anything the library reports as a
   * server error is thrown for the route to log and answer generically (its message may be internal).
   */
  async token(form: URLSearchParams, headers: Record<string, string>): Promise<OAuthAnswer> {
    const body = Object.fromEntries(form);
    // Client credentials are read by one rule (client-auth.ts, RFC 6749 §2.3.1: Basic's id and secret
    // form-urlencoded, as strict clients send them) and handed to the library as form parameters; its
    // own Basic parser would take `%5F` for three characters of the secret.
    const credentials = clientCredentials(headers, form);
    if (!credentials.ok) return invalidClientRequest(credentials.message);
    const { authorization: _basic, ...rest } = headers;
    if (credentials.basic) {
      body.client_id = credentials.clientId;
      if (credentials.clientSecret !== undefined) body.client_secret = credentials.clientSecret;
    }
    const request = new Request({
      method: 'POST',
      query: {},
      body,
      headers: { ...(credentials.basic ? rest : headers), 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(form.toString().length) },
    });
    const response = new Response({ headers: {} });
    try {
      await this.#token.token(request, response);
    } catch (err) {
      if (!(err instanceof OAuthError) || err.code >= 500) throw err;
    }
    const answer = { status: response.status ?? 200, headers: stringHeaders(response.headers), body: (response.body ?? {}) as Record<string, unknown> };
    // A client that authenticated with the Authorization header is answered 401 with a challenge (§5.2).
    if (credentials.basic && answer.body.error === 'invalid_client') {
      return { ...answer, status: 401, headers: { ...answer.headers, 'www-authenticate': BASIC_CHALLENGE } };
    }
    return answer;
  }

  /**
   * Issues an authorization code for an approved request and answers the redirect to the client
   * (`code` and `state` in the query). `params` are the checked request's parameters with `scope`
   * narrowed to what the user approved.
   */
  async issueCode(params: Record<string, string>, subject: Subject, redirectUriInRequest: boolean): Promise<string> {
    const request = new Request({ method: 'POST', query: {}, body: params, headers: {} });
    const response = new Response({ headers: {} });
    const user: ModelUser = { ...subjectOf(subject), redirectUriInRequest };
    await this.#authorize.authorize(request, response, { authenticateHandler: { handle: async () => user } });
    const location = response.headers?.location;
    if (typeof location !== 'string') throw new Error('the authorize handler gave no redirect');
    return location;
  }
}

/** Client authentication that cannot be read (RFC 6749 §5.2): `invalid_request`, as the library answers a malformed request. */
function invalidClientRequest(message: string): OAuthAnswer {
  return { status: 400, headers: {}, body: { error: 'invalid_request', error_description: message } };
}

function stringHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (typeof v === 'string') out[k.toLowerCase()] = v;
  return out;
}
