/** The authorization code grant of @node-oauth/oauth2-server, which lib/oauth/server.ts extends (the package types only its index). */
declare module '@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type.js' {
  import type OAuth2Server from '@node-oauth/oauth2-server';

  export default class AuthorizationCodeGrantType extends OAuth2Server.AbstractGrantType {
    handle(request: OAuth2Server.Request, client: OAuth2Server.Client): Promise<OAuth2Server.Token>;
    validateRedirectUri(request: OAuth2Server.Request, code: OAuth2Server.AuthorizationCode): void;
  }
}
