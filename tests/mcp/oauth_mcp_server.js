// A remote MCP server behind OAuth 2.1, for the end-to-end tests: the
// protected resource (POST /mcp, a small JSON-RPC MCP server with one tool)
// and its authorization server (metadata, dynamic registration, /authorize
// with PKCE, /token with authorization_code and refresh_token) in one process,
// over HTTPS with the test's certificate or plain HTTP.
//
//   node oauth_mcp_server.js [--tls cert.pem key.pem] [--host localhost]
//
// ACCESS_TTL (seconds, default 3600) is the access tokens' lifetime.
// /authorize takes the person who approves as `user` (default "operator"):
// their tokens say so, and the whoami tool answers with it; and `iss=omit`
// leaves its issuer out of the response, which its metadata says it always
// names (RFC 9207). /revoke revokes
// (RFC 7009). GET /stats reports what happened ({registrations,
// authorizations, codes, refreshes, revocations, calls, callsBy, lastScope});
// tokens are never shown.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const https = require('https');

const args = process.argv.slice(2);
const tls = args.indexOf('--tls');
const hostArg = args.indexOf('--host');
const host = hostArg >= 0 ? args[hostArg + 1] : 'localhost';
const ttl = Number(process.env.ACCESS_TTL || 3600);
const stats = { registrations: 0, authorizations: 0, codes: 0, refreshes: 0, revocations: 0, calls: 0, callsBy: {},
                lastScope: '' };
const clients = new Map(); // id -> {secret, redirects}
const codes = new Map(); // code -> {client, redirect, challenge, scope, resource}
const tokens = new Map(); // access token -> {scope, expires}
const refreshTokens = new Map(); // refresh token -> {client, scope}
let base = '';

const random = () => crypto.randomBytes(24).toString('base64url');
const json = (res, status, body, headers = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

function clientOf(req, form) {
  const auth = req.headers.authorization || '';
  if (auth.startsWith('Basic ')) {
    const [id, secret] = Buffer.from(auth.slice(6), 'base64').toString().split(':').map(decodeURIComponent);
    const c = clients.get(id);
    return c && c.secret === secret ? id : null;
  }
  return null;
}

function issue(res, client, scope, user) {
  const access = 'at-' + random();
  const refresh = 'rt-' + random();
  tokens.set(access, { scope, user, expires: Date.now() + ttl * 1000, refresh });
  refreshTokens.set(refresh, { client, scope, user });
  json(res, 200, { access_token: access, token_type: 'Bearer', expires_in: ttl, refresh_token: refresh, scope });
}

function challenge(res, why) {
  res.writeHead(401, {
    'Content-Type': 'application/json',
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${why}", ` +
      `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="notes:read"`,
  });
  res.end(JSON.stringify({ error: 'invalid_token' }));
}

function mcp(req, res, body) {
  const bearer = (req.headers.authorization || '').replace(/^Bearer /, '');
  const token = tokens.get(bearer);
  if (!token) return challenge(res, 'no valid token');
  if (token.expires < Date.now()) return challenge(res, 'expired');
  let message;
  try {
    message = JSON.parse(body);
  } catch {
    return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
  }
  if (message.id === undefined) {
    res.writeHead(202);
    return res.end();
  }
  const reply = (result) => json(res, 200, { jsonrpc: '2.0', id: message.id, result });
  if (message.method === 'initialize') {
    return reply({
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'notes', version: '1.0.0' },
    });
  }
  if (message.method === 'tools/list') {
    return reply({ tools: [{ name: 'whoami', description: 'Who the token says you are.', inputSchema: { type: 'object' } }] });
  }
  if (message.method === 'tools/call') {
    stats.calls++;
    stats.callsBy[token.user] = (stats.callsBy[token.user] || 0) + 1;
    return reply({ content: [{ type: 'text', text: JSON.stringify({ scope: token.scope, user: token.user,
                                                                    calls: stats.calls }) }] });
  }
  json(res, 200, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'no such method' } });
}

function handle(req, res) {
  const url = new URL(req.url, base);
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const form = Object.fromEntries(new URLSearchParams(body));
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
      return json(res, 200, { resource: base + '/mcp', authorization_servers: [base], scopes_supported: ['notes:read'] });
    }
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: base,
        authorization_endpoint: base + '/authorize',
        token_endpoint: base + '/token',
        registration_endpoint: base + '/register',
        revocation_endpoint: base + '/revoke',
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
        scopes_supported: ['notes:read', 'offline_access'],
        authorization_response_iss_parameter_supported: true,
      });
    }
    if (url.pathname === '/register' && req.method === 'POST') {
      const meta = JSON.parse(body);
      const id = 'client-' + random();
      const secret = 'secret-' + random();
      clients.set(id, { secret, redirects: meta.redirect_uris || [] });
      stats.registrations++;
      return json(res, 201, { client_id: id, client_secret: secret, redirect_uris: meta.redirect_uris,
                              token_endpoint_auth_method: 'client_secret_basic' });
    }
    if (url.pathname === '/authorize') {
      const q = Object.fromEntries(url.searchParams);
      const c = clients.get(q.client_id);
      if (!c || !c.redirects.includes(q.redirect_uri) || q.code_challenge_method !== 'S256' || !q.code_challenge ||
          q.resource !== base + '/mcp') {
        return json(res, 400, { error: 'invalid_request' });
      }
      stats.authorizations++;
      const code = 'code-' + random();
      codes.set(code, { client: q.client_id, redirect: q.redirect_uri, challenge: q.code_challenge, scope: q.scope || '',
                        user: q.user || 'operator' });
      const back = new URL(q.redirect_uri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.state);
      // ?iss=omit (a test's addition to the URL): the response does not name its issuer.
      if (q.iss !== 'omit') back.searchParams.set('iss', base);
      res.writeHead(302, { Location: back.toString() });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const client = clientOf(req, form);
      if (!client) return json(res, 401, { error: 'invalid_client' });
      if (form.resource !== base + '/mcp') return json(res, 400, { error: 'invalid_target' });
      if (form.grant_type === 'authorization_code') {
        const grant = codes.get(form.code);
        codes.delete(form.code);
        const verified = grant && crypto.createHash('sha256').update(form.code_verifier || '').digest('base64url') === grant.challenge;
        if (!grant || grant.client !== client || grant.redirect !== form.redirect_uri || !verified) {
          return json(res, 400, { error: 'invalid_grant' });
        }
        stats.codes++;
        stats.lastScope = grant.scope;
        return issue(res, client, grant.scope, grant.user);
      }
      if (form.grant_type === 'refresh_token') {
        const grant = refreshTokens.get(form.refresh_token);
        if (!grant || grant.client !== client) return json(res, 400, { error: 'invalid_grant' });
        refreshTokens.delete(form.refresh_token);
        stats.refreshes++;
        return issue(res, client, grant.scope, grant.user);
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    if (url.pathname === '/revoke' && req.method === 'POST') {
      if (!clientOf(req, form)) return json(res, 401, { error: 'invalid_client' });
      // A refresh token takes its access tokens with it.
      const grant = refreshTokens.get(form.token);
      if (grant) {
        refreshTokens.delete(form.token);
        for (const [access, t] of tokens) if (t.refresh === form.token) tokens.delete(access);
      }
      tokens.delete(form.token);
      stats.revocations++;
      res.writeHead(200);
      return res.end();
    }
    if (url.pathname === '/mcp' && req.method === 'POST') return mcp(req, res, body);
    if (url.pathname === '/mcp') {
      res.writeHead(req.method === 'DELETE' ? 200 : 405);
      return res.end();
    }
    if (url.pathname === '/stats') return json(res, 200, stats);
    json(res, 404, { error: 'not_found' });
  });
}

const server = tls >= 0
  ? https.createServer({ cert: fs.readFileSync(args[tls + 1]), key: fs.readFileSync(args[tls + 2]) }, handle)
  : http.createServer(handle);
server.listen(0, '127.0.0.1', () => {
  base = `${tls >= 0 ? 'https' : 'http'}://${host}:${server.address().port}`;
  console.log('listening ' + server.address().port);
});
process.on('SIGTERM', () => process.exit(0));
