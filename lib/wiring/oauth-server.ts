/** The OAuth protocol engine of this function instance (only the oauth functions bundle the library). */
import { OAuthServer } from '../access/oauth/server.js';
import { oauthClients, tokenStore } from './auth.js';
import { once } from './clients.js';

export const oauthServer = once(() => new OAuthServer(oauthClients(), tokenStore()));
