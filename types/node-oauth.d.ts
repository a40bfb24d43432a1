/** The authorization code grant of @node-oauth/oauth2-server, which lib/access/oauth/server.ts extends (the package types only its index). */
declare module '@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type.js' {
  import type OAuth2Server from '@node-oauth/oauth2-server';

  export default class AuthorizationCodeGrantType extends OAuth2Server.AbstractGrantType {
    handle(request: OAuth2Server.Request, client: OAuth2Server.Client): Promise<OAuth2Server.Token>;
    validateRedirectUri(request: OAuth2Server.Request, code: OAuth2Server.AuthorizationCode): void;
  }
}

/** The refresh token grant, which lib/access/oauth/server.ts reorders (the scope checked before the token is spent). */
declare module '@node-oauth/oauth2-server/lib/grant-types/refresh-token-grant-type.js' {
  import type OAuth2Server from '@node-oauth/oauth2-server';

  export default class RefreshTokenGrantType extends OAuth2Server.AbstractGrantType {
    handle(request: OAuth2Server.Request, client: OAuth2Server.Client): Promise<OAuth2Server.Token>;
    getRefreshToken(request: OAuth2Server.Request, client: OAuth2Server.Client): Promise<OAuth2Server.RefreshToken>;
    revokeToken(token: OAuth2Server.RefreshToken): Promise<OAuth2Server.RefreshToken>;
    getScope(request: OAuth2Server.Request, token: OAuth2Server.RefreshToken): string[] | undefined;
    saveToken(user: OAuth2Server.User, client: OAuth2Server.Client, scope: string[] | undefined): Promise<OAuth2Server.Token>;
  }
}
