// A real OpenID Connect provider for the tests (node-oidc-provider, pinned in package.json / package-lock.json).
// tests/oidc/conftest-side: tests/oidc/provider.py installs it into ~/.cache/vllm-profiles/oidc-provider and
// starts one process per test session.
//
// Environment: OIDC_PORT (listens on 127.0.0.1), OIDC_USERS_FILE (JSON {login: {email, name, groups}}, read
// at every log-in, so a test can change a user's groups), OIDC_CLIENT_ID, OIDC_CLIENT_SECRET.
// Its log-in page is node-oidc-provider's development interaction: any password for a login listed in the
// users file; a login that is not listed is refused by findAccount.
import { readFileSync } from 'node:fs';
import { generateKeyPair, exportJWK } from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_PORT);
const issuer = `http://127.0.0.1:${port}`;
const usersFile = process.env.OIDC_USERS_FILE;

function users() {
  return JSON.parse(readFileSync(usersFile, 'utf8'));
}

const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const signingKey = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'tests' };

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: process.env.OIDC_CLIENT_ID,
      client_secret: process.env.OIDC_CLIENT_SECRET,
      redirect_uris: ['http://testserver/oidc/callback/'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
      id_token_signed_response_alg: 'RS256',
    },
  ],
  jwks: { keys: [signingKey] },
  scopes: ['openid', 'email', 'profile', 'groups'],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name', 'preferred_username'],
    groups: ['groups'],
  },
  findAccount(ctx, id) {
    const user = users()[id];
    if (!user) {
      return undefined;
    }
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          email: user.email,
          email_verified: user.email_verified ?? true,
          name: user.name || id,
          preferred_username: id,
          groups: user.groups || [],
        };
      },
    };
  },
  features: { devInteractions: { enabled: true } },
  cookies: { keys: ['tests-only-cookie-key'] },
});

// The Django side runs on pytest-django's live server (127.0.0.1, a random port) or its test client
// (testserver): allow the callback path on any loopback port.
const allowed = provider.Client.prototype.redirectUriAllowed;
provider.Client.prototype.redirectUriAllowed = function redirectUriAllowed(value) {
  const url = URL.parse(value);
  if (url && url.protocol === 'http:' && ['127.0.0.1', 'localhost'].includes(url.hostname)
      && url.pathname === '/oidc/callback/') {
    return true;
  }
  return allowed.call(this, value);
};

provider.listen(port, '127.0.0.1', () => {
  console.log(`oidc-provider listening on ${issuer}`);
});
