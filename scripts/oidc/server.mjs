// Test-only OpenID Connect provider shaped like INDIGO IAM, for integration tests and benchmarks.
//
// It is the real `oidc-provider` (panva, OpenID Certified) with the pieces IAM has and the library
// lacks: IAM's endpoint paths, introspection and userinfo for JWT access tokens, the RFC 8693
// token exchange IAM implements, and a password-like grant so tests get user tokens without a
// browser. Test hooks (/test/*) sign arbitrary claims with this issuer's keys and rotate keys;
// they exist only here, and the server only ever listens on 127.0.0.1.
//
// Usage: node server.mjs --name NAME --dir DIR [--profile full|minimal|wlcg] [--watch-pid PID] [--port N]
//   Listens on a free loopback port, then writes DIR/issuer (the issuer URL) and DIR/port.
//   With --watch-pid it exits when that process is gone (a test killed before it could stop us).
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import * as jose from 'jose';
import Provider, { errors } from 'oidc-provider';

const kResource = 'https://orchestrator.test/';
const kOtherResource = 'https://other-service.test/';
const kTokenExchange = 'urn:ietf:params:oauth:grant-type:token-exchange';
const kPasswordGrant = 'urn:test:password';
// Tests of "the user's token expired long ago" shorten every access token this provider mints
// (exchanged and refreshed ones too); the password grant's `ttl` still overrides it per token.
const kAccessTokenTtl = Number(process.env.OIDC_TEST_ACCESS_TOKEN_TTL) || 3600;
// RFC 7591 registrations carry this initial access token (an IAM operator's configured token) or,
// as IAM takes them, a user's own access token: IamMiddleware checks the user's token and hands the
// library the operator's one, which is all oidc-provider knows. RFC 7592 manages what they created.
const kInitialAccessToken = 'test-initial-access-token';
const kScopes = ['openid', 'profile', 'email', 'offline_access', 'fts:submit-transfer', 'wlcg.groups'];

function ParseArgs(argv) {
  const args = { profile: 'full' };
  for (let i = 2; i < argv.length; i += 2) {
    args[argv[i].replace(/^--/, '')] = argv[i + 1];
  }
  if (!args.name || !args.dir) {
    throw new Error('usage: server.mjs --name NAME --dir DIR [--profile full|minimal|wlcg]');
  }
  return args;
}

const args = ParseArgs(process.argv);

// IAM users: UUID subjects, group names (nested groups carry the parent path).
function SubjectFor(username) {
  const h = crypto.createHash('sha256').update(`${args.name}/${username}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
const kUsers = {
  alice: { groups: ['users', 'orchestrator-admins'] },
  bob: { groups: ['users', 'physics', 'physics/higgs'] },
  carol: { groups: [] },
};
const kAccounts = new Map(
  Object.entries(kUsers).map(([username, u]) => [SubjectFor(username), { username, ...u }]),
);

// ---- keys: the signing set can change at run time (rotation), so providers are rebuilt on it.
const keys = { rsa: [], ec: [], serial: 0 };

async function NewKey(kind) {
  keys.serial += 1;
  const alg = kind === 'rsa' ? 'RS256' : 'ES256';
  const { privateKey } = await jose.generateKeyPair(alg, { extractable: true });
  const jwk = await jose.exportJWK(privateKey);
  return { ...jwk, kid: `${kind}${keys.serial}`, alg, use: 'sig' };
}

function PublicJwks() {
  return {
    keys: [...keys.rsa, ...keys.ec].map(({ d, p, q, dp, dq, qi, ...pub }) => pub),
  };
}

async function VerifyOwnJwt(token) {
  const { payload } = await jose.jwtVerify(token, jose.createLocalJWKSet(PublicJwks()), {
    issuer: issuerUrl,
    algorithms: ['RS256', 'ES256'],
  });
  return payload;
}

// ---- storage shared by every provider instance, so grants and refresh tokens survive rotation.
const storage = new Map();
class SharedMemoryAdapter {
  constructor(model) { this.model = model; }
  key(id) { return `${this.model}:${id}`; }
  async upsert(id, payload, expiresIn) {
    const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : undefined;
    storage.set(this.key(id), { payload, expiresAt });
    if (payload.grantId) {
      const grantKey = `grant:${payload.grantId}`;
      const list = storage.get(grantKey) || [];
      list.push(this.key(id));
      storage.set(grantKey, list);
    }
  }
  async find(id) {
    const entry = storage.get(this.key(id));
    if (!entry || (entry.expiresAt && entry.expiresAt < Date.now())) return undefined;
    return entry.payload;
  }
  async findByUserCode() { return undefined; }
  async findByUid() { return undefined; }
  async consume(id) {
    const entry = storage.get(this.key(id));
    if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id) { storage.delete(this.key(id)); }
  async revokeByGrantId(grantId) {
    for (const k of storage.get(`grant:${grantId}`) || []) storage.delete(k);
    storage.delete(`grant:${grantId}`);
  }
}

// IAM's default profile leaves `scope` out of access tokens but knows it (its database); we keep
// what the customizer removed, by token id, so /introspect can still answer it.
const scopeByJti = new Map();
function RememberScope(jti, scope) {
  if (scopeByJti.size > 10000) scopeByJti.clear();
  scopeByJti.set(jti, scope);
}

let issuerUrl = '';
let current = null;  // { provider, callback }

function ClaimsFor(accountId) {
  const account = kAccounts.get(accountId);
  if (!account) return {};
  if (args.profile === 'minimal') return {};  // IAM default: who and until when, nothing else
  if (args.profile === 'wlcg') {
    return { 'wlcg.groups': account.groups.map((g) => `/${g}`), 'wlcg.ver': '1.0' };
  }
  return {
    groups: account.groups,
    preferred_username: account.username,
    organisation_name: 'indigo-dc',
  };
}

function ResourceServerInfo(resource, alg = 'RS256') {
  const kid = alg === 'ES256' ? keys.ec[0].kid : keys.rsa[0].kid;
  return {
    scope: kScopes.join(' '),
    audience: resource,
    accessTokenTTL: kAccessTokenTtl,
    accessTokenFormat: 'jwt',
    jwt: { sign: { alg, kid } },
  };
}

function TokenResponse(accessToken, at, refreshToken, extra = {}) {
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: at.expiration,
    scope: at.scope,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    ...extra,
  };
}

// Mints an access token (and a refresh token with offline_access) for `accountId`.
async function MintForAccount(ctx, provider, accountId, scopeText, options = {}) {
  const { client } = ctx.oidc;
  const requested = new Set((scopeText || 'openid profile').split(' ').filter(Boolean));
  for (const s of requested) {
    if (!kScopes.includes(s)) throw new errors.InvalidScope('requested scope is not allowed', s);
  }
  const scope = [...requested].join(' ');
  const resource = options.resource || kResource;
  const grant = new provider.Grant({ accountId, clientId: client.clientId });
  grant.addOIDCScope([...requested].filter((s) => ['openid', 'profile', 'email', 'offline_access'].includes(s)));
  grant.addResourceScope(resource, scope);
  const grantId = await grant.save();

  const at = new provider.AccessToken({
    accountId,
    client,
    grantId,
    gty: options.gty,
    scope,
    ...(options.ttl ? { expiresIn: options.ttl } : {}),
  });
  at.resourceServer = new provider.ResourceServer(resource, ResourceServerInfo(resource, options.alg));
  const accessToken = await at.save();

  let refreshToken;
  if (requested.has('offline_access') && client.grantTypeAllowed('refresh_token')) {
    const rt = new provider.RefreshToken({
      accountId, client, grantId, gty: options.gty, scope, resource,
    });
    refreshToken = await rt.save();
  }
  return { accessToken, at, refreshToken };
}

async function PasswordGrant(ctx, next) {
  const provider = ctx.oidc.provider;
  const { username, scope, resource, ttl, alg } = ctx.oidc.params;
  const accountId = SubjectFor(username || '');
  if (!kAccounts.has(accountId)) throw new errors.InvalidGrant('unknown user');
  const minted = await MintForAccount(ctx, provider, accountId, scope, {
    gty: 'password',
    resource,
    ttl: ttl ? Number(ttl) : undefined,
    alg: alg === 'ES256' ? 'ES256' : 'RS256',
  });
  ctx.body = TokenResponse(minted.accessToken, minted.at, minted.refreshToken);
  await next();
}

// RFC 8693 impersonation, as IAM does it: authenticated actor client, subject token verified with
// our own keys, no delegation, and no offline_access for a token the actor itself obtained.
async function TokenExchangeGrant(ctx, next) {
  const provider = ctx.oidc.provider;
  const { subject_token: subjectToken, scope, actor_token: actorToken } = ctx.oidc.params;
  if (actorToken) throw new errors.InvalidRequest('Delegation not supported');
  if (!subjectToken) throw new errors.InvalidRequest('missing subject_token');
  if (!scope) throw new errors.InvalidRequest('scope is required');
  let subject;
  try {
    subject = await VerifyOwnJwt(subjectToken);
  } catch (e) {
    throw new errors.InvalidGrant(`invalid subject_token (${e.code || 'invalid'})`);
  }
  const requested = new Set(scope.split(' '));
  if (subject.client_id === ctx.oidc.client.clientId && requested.has('offline_access')) {
    throw new errors.InvalidRequest('token exchange for the same client with offline_access is forbidden');
  }
  if (!kAccounts.has(subject.sub)) throw new errors.InvalidGrant('subject is not a user');
  const minted = await MintForAccount(ctx, provider, subject.sub, scope, {
    gty: 'token_exchange',
  });
  ctx.body = TokenResponse(minted.accessToken, minted.at, minted.refreshToken, {
    issued_token_type: 'urn:ietf:params:oauth:token-type:jwt',
  });
  await next();
}

// ---- IAM-like introspection and userinfo for JWT access tokens (oidc-provider refuses both).
async function ReadBody(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const kClients = [
  {
    client_id: 'orchestrator',
    client_secret: 'orchestrator-secret',
    grant_types: ['client_credentials', 'refresh_token', kTokenExchange, kPasswordGrant],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  },
  {
    client_id: 'dashboard',
    client_secret: 'dashboard-secret',
    grant_types: ['refresh_token', kPasswordGrant],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  },
];

function ClientFromBasic(header) {
  const m = /^Basic (.+)$/i.exec(header || '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const id = decodeURIComponent(decoded.slice(0, colon));
  const secret = decodeURIComponent(decoded.slice(colon + 1));
  return kClients.find((c) => c.client_id === id && c.client_secret === secret);
}

function IntrospectionFor(payload) {
  const account = kAccounts.get(payload.sub) || {};
  const answer = {
    active: true,
    scope: payload.scope ?? scopeByJti.get(payload.jti),
    exp: payload.exp,
    iat: payload.iat,
    sub: payload.sub,
    client_id: payload.client_id,
    token_type: 'Bearer',
    iss: payload.iss,
    aud: Array.isArray(payload.aud) ? payload.aud.join(' ') : payload.aud,
  };
  if ((answer.scope || '').split(' ').includes('profile') && account.username) {
    Object.assign(answer, {
      groups: account.groups,
      preferred_username: account.username,
      organisation_name: 'indigo-dc',
    });
  }
  return answer;
}

async function IamMiddleware(ctx, next) {
  if (ctx.path === '/register' && ctx.method === 'POST') {
    // IAM registers a client for any signed-in user; the client's owner is the token's subject.
    const m = /^Bearer (.+)$/i.exec(ctx.get('authorization') || '');
    if (m && m[1] !== kInitialAccessToken) {
      let payload;
      try {
        payload = await VerifyOwnJwt(m[1]);
      } catch {
        payload = undefined;
      }
      if (payload && kAccounts.has(payload.sub)) {
        ctx.req.headers.authorization = `Bearer ${kInitialAccessToken}`;
      }
    }
  }
  if (ctx.path === '/introspect' && ctx.method === 'POST') {
    const body = new URLSearchParams(await ReadBody(ctx.req));
    const token = body.get('token') || '';
    if (token.split('.').length === 3) {
      if (!ClientFromBasic(ctx.get('authorization'))) {
        ctx.status = 401;
        ctx.body = { error: 'invalid_client' };
        return;
      }
      try {
        ctx.body = IntrospectionFor(await VerifyOwnJwt(token));
      } catch {
        ctx.body = { active: false };
      }
      return;
    }
    // Opaque tokens (refresh tokens) go to the library's own endpoint, which takes an already
    // read body from ctx.request.body.
    ctx.request.body = body.toString();
  }
  if (ctx.path === '/userinfo') {
    const m = /^Bearer (.+)$/i.exec(ctx.get('authorization') || '');
    let payload;
    try {
      payload = m && (await VerifyOwnJwt(m[1]));
    } catch {
      payload = undefined;
    }
    const account = payload && kAccounts.get(payload.sub);
    if (!account) {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer error="invalid_token"');
      ctx.body = { error: 'invalid_token' };
      return;
    }
    ctx.body = {
      sub: payload.sub,
      name: account.username,
      preferred_username: account.username,
      organisation_name: 'indigo-dc',
      groups: account.groups,
    };
    return;
  }
  await next();
}

// ---- test hooks
async function TestHooks(req, res) {
  const url = new URL(req.url, issuerUrl);
  const reply = (status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  try {
    const body = req.method === 'POST' ? JSON.parse((await ReadBody(req)) || '{}') : {};
    if (url.pathname === '/test/sign') {
      // Signs exactly the given claims with this issuer's current key: negative tests need
      // expired, future, foreign-audience and cross-issuer tokens that a provider never mints.
      const kind = body.key === 'ec' ? 'ec' : 'rsa';
      const jwk = keys[kind][0];
      const key = await jose.importJWK(jwk, jwk.alg);
      const header = { alg: jwk.alg, kid: jwk.kid, ...(body.header || {}) };
      const token = await new jose.CompactSign(Buffer.from(JSON.stringify(body.payload || {})))
        .setProtectedHeader(header)
        .sign(key);
      return reply(200, { token });
    }
    if (url.pathname === '/test/rotate') {
      // IAM's rolling procedure: publish a new key and sign with it; optionally drop the old ones.
      const fresh = await NewKey('rsa');
      keys.rsa = body.drop_old ? [fresh] : [fresh, ...keys.rsa];
      current = await BuildProvider();
      return reply(200, { kid: fresh.kid, kids: keys.rsa.map((k) => k.kid) });
    }
    if (url.pathname === '/test/clients') {
      // The dynamically registered clients still alive: leak checks read this.
      const ids = [...storage.keys()].filter((k) => k.startsWith('Client:')).map((k) => k.slice('Client:'.length));
      return reply(200, { clients: ids.map((id) => ({ client_id: id, client_name: storage.get(`Client:${id}`).payload.client_name })) });
    }
    if (url.pathname === '/test/users') {
      return reply(200, Object.fromEntries([...kAccounts].map(([sub, a]) => [a.username, { sub, groups: a.groups }])));
    }
    return reply(404, { error: 'not_found' });
  } catch (e) {
    return reply(500, { error: String(e.message || e) });
  }
}

async function BuildProvider() {
  const provider = new Provider(issuerUrl, {
    adapter: SharedMemoryAdapter,
    jwks: { keys: [...keys.rsa, ...keys.ec] },
    clients: kClients,
    scopes: kScopes,
    claims: {
      openid: ['sub'],
      profile: ['name', 'preferred_username', 'groups', 'organisation_name'],
      email: ['email', 'email_verified'],
    },
    async findAccount(ctx, id) {
      const account = kAccounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        async claims() {
          return { sub: id, preferred_username: account.username, groups: account.groups };
        },
      };
    },
    // IAM marks exchanged tokens with `act` = the actor client (impersonation).
    extraTokenClaims: async (ctx, token) => {
      if (!token.accountId) return undefined;
      const act = (token.gty || '').startsWith('token_exchange') ? { act: { sub: token.clientId } } : {};
      return { ...ClaimsFor(token.accountId), ...act };
    },
    formats: {
      customizers: {
        // IAM's default profile puts no scope into access tokens; scopes come from introspection.
        async jwt(ctx, token, jwt) {
          if (args.profile === 'minimal') {
            RememberScope(jwt.payload.jti, jwt.payload.scope);
            delete jwt.payload.scope;
          }
        },
      },
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: () => true },
      revocation: { enabled: true },
      registration: { enabled: true, initialAccessToken: kInitialAccessToken },
      registrationManagement: { enabled: true, rotateRegistrationAccessToken: false },
      userinfo: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => kResource,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource) => {
          if (resource !== kResource && resource !== kOtherResource) throw new errors.InvalidTarget();
          return ResourceServerInfo(resource);
        },
      },
    },
    routes: { jwks: '/jwk', introspection: '/introspect', userinfo: '/userinfo', revocation: '/revoke', registration: '/register' },
    ttl: {
      AccessToken: (ctx, token) => token.resourceServer?.accessTokenTTL || kAccessTokenTtl,
      ClientCredentials: 3600,
      RefreshToken: 30 * 24 * 3600,
      Grant: 30 * 24 * 3600,
      IdToken: 600,
      Interaction: 600,
      Session: 3600,
    },
    cookies: { keys: [crypto.randomBytes(16).toString('hex')] },
    rotateRefreshToken: false,
  });
  provider.registerGrantType(kPasswordGrant, PasswordGrant, ['username', 'scope', 'resource', 'ttl', 'alg']);
  provider.registerGrantType(
    kTokenExchange,
    TokenExchangeGrant,
    ['subject_token', 'subject_token_type', 'scope', 'audience', 'resource', 'actor_token', 'actor_token_type'],
  );
  provider.use(IamMiddleware);
  return { provider, callback: provider.callback() };
}

async function Main() {
  keys.rsa = [await NewKey('rsa')];
  keys.ec = [await NewKey('ec')];
  const server = http.createServer((req, res) => {
    if (req.url.startsWith('/test/')) {
      TestHooks(req, res);
      return;
    }
    if (!current) {
      res.writeHead(503);
      res.end();
      return;
    }
    current.callback(req, res);
  });
  // --port fixes the port (docker-compose.yml); by default the system picks a free one.
  server.listen(Number(args.port || 0), '127.0.0.1', async () => {
    const { port } = server.address();
    issuerUrl = `http://127.0.0.1:${port}/`;
    current = await BuildProvider();
    fs.writeFileSync(path.join(args.dir, 'port'), `${port}\n`);
    // Written last and atomically: its presence means "ready".
    fs.writeFileSync(path.join(args.dir, 'issuer.tmp'), `${issuerUrl}\n`);
    fs.renameSync(path.join(args.dir, 'issuer.tmp'), path.join(args.dir, 'issuer'));
    console.log(`oidc test provider ${args.name} (${args.profile}) at ${issuerUrl}`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (args['watch-pid']) {
    setInterval(() => {
      try {
        process.kill(Number(args['watch-pid']), 0);
      } catch {
        process.exit(0);
      }
    }, 1000).unref();
  }
}

Main().catch((e) => {
  console.error(e);
  process.exit(1);
});
