#!/usr/bin/python3
"""An OAuth 2.0 / OpenID Connect relying party written with Authlib (Python), for test/oauth-authlib.test.ts.

It shares no code with the provider (Better Auth) nor with the Node client libraries the other tests use
(openid-client and oauth4webapi, which share their core): discovery, the authorization request, the token
calls, client authentication, refresh, revocation, introspection and ID-token validation are Authlib's own
classes. Authlib 1.2 (Debian's python3-authlib) needs an HTTP session, but python3-authlib depends on
neither python3-requests nor python3-httpx, so a small urllib session with the interface
authlib.oauth2.client.OAuth2Client expects (post(url, data, headers, auth)) carries its requests. The
browser step (sign-in, consent) is the Node test's: it opens the URL `authorize` prints and passes back the
redirect it ended at.

Usage: authlib_client.py COMMAND < input.json > result.json. Every request is bounded by TIMEOUT seconds;
the caller bounds the process. HTTP (not HTTPS) to loopback needs AUTHLIB_INSECURE_TRANSPORT=1.
"""
import json
import sys
import time
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urlsplit

from authlib.common.security import generate_token
from authlib.common.urls import url_encode
from authlib.jose import JsonWebKey, JsonWebToken
from authlib.jose.errors import JoseError
from authlib.oauth2 import OAuth2Error
from authlib.oauth2.client import OAuth2Client
from authlib.oauth2.rfc7523 import PrivateKeyJWT, client_secret_jwt_sign, private_key_jwt_sign
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata, get_well_known_url
from authlib.oidc.core import CodeIDToken
from authlib.oidc.discovery import OpenIDProviderMetadata
from authlib.oidc.discovery import get_well_known_url as oidc_well_known_url

TIMEOUT = 10
# What this relying party accepts for ID tokens: what the provider offers, never "none" or a MAC.
ID_TOKEN_ALGS = ['RS256', 'ES256', 'EdDSA']


class Response:
    """The part of a requests.Response that Authlib's OAuth2Client reads."""

    def __init__(self, status_code, headers, text):
        self.status_code = status_code
        self.headers = headers  # an email.message.Message: case-insensitive get
        self.text = text

    def json(self):
        return json.loads(self.text)

    def raise_for_status(self):
        if self.status_code >= 400:
            raise RuntimeError(f'HTTP {self.status_code}: {self.text[:200]}')


class UrllibSession:
    """The transport OAuth2Client expects of a session, on the standard library."""

    def request(self, method, url, data=None, headers=None, auth=None, body=None):
        headers = dict(headers or {})  # Authlib hands over its module-level defaults: never mutate them
        if data is not None:
            body = url_encode(list(data.items()))
        if auth is not None:
            url, headers, body = auth.prepare(method, url, headers, body or '')
        raw = body.encode() if isinstance(body, str) else body
        request = urllib.request.Request(url, data=raw, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as res:
                return Response(res.status, res.headers, res.read().decode())
        except urllib.error.HTTPError as err:
            return Response(err.code, err.headers, err.read().decode())

    def post(self, url, data=None, headers=None, auth=None, **_):
        return self.request('POST', url, data=data, headers=headers, auth=auth)

    def get(self, url, headers=None):
        return self.request('GET', url, headers=headers)


SESSION = UrllibSession()


def get_json(url):
    res = SESSION.get(url, headers={'Accept': 'application/json'})
    return res.status_code, (res.json() if res.status_code == 200 else None)


def oauth_client(given):
    """Authlib's client for one registered client: secret (if any), auth method, PKCE S256."""
    client = given['client']
    return OAuth2Client(
        SESSION,
        client_id=client['client_id'],
        client_secret=client.get('client_secret'),
        token_endpoint_auth_method=client.get('token_endpoint_auth_method'),
        revocation_endpoint_auth_method=client.get('token_endpoint_auth_method'),
        redirect_uri=given.get('redirect_uri'),
        scope=given.get('scope'),
        code_challenge_method='S256',
    )


def validation_error(metadata):
    try:
        metadata.validate()
        return None
    except ValueError as err:
        return str(err)


def discover(given):
    """OIDC metadata at the RFC 8414 §3.1 path (Authlib's get_well_known_url), validated by Authlib's models."""
    issuer = given['issuer']
    oidc_url = get_well_known_url(issuer, external=True, suffix='openid-configuration')
    oauth_url = get_well_known_url(issuer, external=True)
    oidc_status, oidc = get_json(oidc_url)
    oauth_status, oauth = get_json(oauth_url)
    # OIDC Discovery §4 appends the well-known path to the issuer instead; record what it answers.
    appended_status, _ = get_json(oidc_well_known_url(issuer, external=True))
    return {
        'oidc_url': oidc_url,
        'oidc_status': oidc_status,
        'oauth_url': oauth_url,
        'oauth_status': oauth_status,
        'appended_status': appended_status,
        'metadata': oidc,
        'oidc_invalid': validation_error(OpenIDProviderMetadata(oidc or {})),
        'oauth_invalid': validation_error(AuthorizationServerMetadata(oauth or {})),
        'same_token_endpoint': bool(oidc and oauth and oidc['token_endpoint'] == oauth['token_endpoint']),
    }


def register(given):
    """RFC 7591 registration with an initial access token (Authlib has no client-side registration helper)."""
    body = json.dumps(given['metadata'])
    res = SESSION.request(
        'POST',
        given['registration_endpoint'],
        body=body,
        headers={
            'Content-Type': 'application/json',
            'Accept': 'application/json',
            'Authorization': f'Bearer {given["initial_access_token"]}',
        },
    )
    return {'status': res.status_code, 'client': res.json()}


def authorize(given):
    """The authorization request: state, nonce and the S256 challenge of a fresh verifier."""
    verifier = generate_token(64)
    nonce = generate_token(24)
    url, state = oauth_client(given).create_authorization_url(
        given['metadata']['authorization_endpoint'], code_verifier=verifier, nonce=nonce
    )
    return {'url': url, 'state': state, 'verifier': verifier, 'nonce': nonce}


def check_id_token(given, token):
    """The ID token against the JWKS with Authlib's JWT and OIDC Core §3.1.3.7 rules (CodeIDToken)."""
    metadata, flow = given['metadata'], given['flow']
    client_id = given['client']['client_id']
    _, jwks = get_json(metadata['jwks_uri'])
    keys = JsonWebKey.import_key_set(jwks)
    options = {
        'iss': {'essential': True, 'value': metadata['issuer']},
        'aud': {'essential': True, 'value': client_id},
    }
    params = {'nonce': flow['nonce'], 'client_id': client_id, 'access_token': token['access_token']}
    result = {'signature_valid': False, 'valid': False, 'error': None}
    try:
        claims = JsonWebToken(ID_TOKEN_ALGS).decode(
            token['id_token'], keys, claims_cls=CodeIDToken, claims_options=options, claims_params=params
        )
    except JoseError as err:
        result['error'] = f'{err.error}: {err.description}'
        return result
    result.update(
        signature_valid=True,
        alg=claims.header['alg'],
        at_hash_present='at_hash' in claims,
        claims={k: claims.get(k) for k in ('iss', 'sub', 'aud', 'nonce', 'exp', 'iat')},
    )
    try:
        claims.validate()
        result['valid'] = True
    except JoseError as err:
        result['error'] = f'{err.error}: {err.description}'
    # The same rules without the access token (so without at_hash): what else, if anything, fails.
    without_at_hash = CodeIDToken(claims, claims.header, options=options, params={**params, 'access_token': None})
    try:
        without_at_hash.validate()
        result['valid_without_at_hash'] = True
    except JoseError as err:
        result['valid_without_at_hash'] = False
        result['error_without_at_hash'] = f'{err.error}: {err.description}'
    return result


def public_token(token):
    return {k: token.get(k) for k in ('access_token', 'refresh_token', 'token_type', 'expires_in', 'scope', 'id_token')}


def exchange(given):
    """The code for tokens (state checked by Authlib, PKCE verifier sent), then the ID token checked."""
    flow, callback = given['flow'], given['callback']
    # RFC 9207: Authlib 1.2 does not read `iss` from the authorization response, so compare it here.
    issuer_in_response = parse_qs(urlsplit(callback).query).get('iss', [None])[0]
    try:
        token = oauth_client(given).fetch_token(
            given['metadata']['token_endpoint'],
            authorization_response=callback,
            state=flow['state'],
            code_verifier=flow['verifier'],
        )
    except OAuth2Error as err:
        return {'error': err.error, 'error_description': err.description}
    return {
        'iss_matches': issuer_in_response == given['metadata']['issuer'],
        'token': public_token(token),
        'id_token': check_id_token(given, token),
    }


def api_status(url, access_token):
    """A protected resource call with Authlib's bearer token placement (RFC 6750 §2.1)."""
    client = OAuth2Client(None, token={'access_token': access_token, 'token_type': 'Bearer'})
    uri, headers, _ = client.token_auth.prepare(url, {'Accept': 'application/json'}, None)
    res = SESSION.get(uri, headers=headers)
    return res.status_code, res.headers.get('WWW-Authenticate')


def api(given):
    status, challenge = api_status(given['api_url'], given['access_token'])
    return {'status': status, 'challenge': challenge}


def refresh(given):
    """Refresh (RFC 6749 §6)."""
    client = oauth_client(given)
    token_endpoint = given['metadata']['token_endpoint']
    try:
        token = client.refresh_token(token_endpoint, refresh_token=given['refresh_token'])
    except OAuth2Error as err:
        return {'error': err.error, 'error_description': err.description}
    return {'token': public_token(token)}


def replay_refresh(given):
    """A refresh token used again, as a thief holding a rotated-out one would: expect invalid_grant."""
    try:
        oauth_client(given).refresh_token(given['metadata']['token_endpoint'], refresh_token=given['refresh_token'])
        return {'error': None}
    except OAuth2Error as err:
        return {'error': err.error, 'error_description': err.description}


def revoke(given):
    """RFC 7009 with the client's own authentication."""
    res = oauth_client(given).revoke_token(
        given['metadata']['revocation_endpoint'], token=given['token'], token_type_hint=given.get('token_type_hint')
    )
    return {'status': res.status_code}


def api_until_refused(given):
    """The API polled with an access token until it answers 401, for at most within_ms."""
    started = time.monotonic()
    deadline = started + given['within_ms'] / 1000
    status, challenge = api_status(given['api_url'], given['access_token'])
    while status != 401 and time.monotonic() < deadline:
        time.sleep(0.02)
        status, challenge = api_status(given['api_url'], given['access_token'])
    return {
        'status': status,
        'challenge': challenge,
        'refused_after_ms': round((time.monotonic() - started) * 1000) if status == 401 else None,
    }


def introspect(given):
    """RFC 7662 with the client's credentials (client_secret_basic)."""
    res = oauth_client(given).introspect_token(
        given['metadata']['introspection_endpoint'], token=given['token'], token_type_hint=given.get('token_type_hint')
    )
    return {'status': res.status_code, 'body': res.json()}


# SMART Backend Services: the client's key pair, and assertions signed by Authlib's RFC 7523 code.
BACKEND_KEYS = {'RS384': ('RSA', 2048), 'ES384': ('EC', 'P-384')}


def backend_keys(given):
    kty, size = BACKEND_KEYS[given['alg']]
    key = JsonWebKey.generate_key(kty, size, options={'kid': generate_token(12)}, is_private=True)
    public = {**key.as_dict(is_private=False), 'alg': given['alg'], 'use': 'sig'}
    return {'private': {**key.as_dict(is_private=True), 'alg': given['alg']}, 'jwks': {'keys': [public]}}


def backend_grant(given):
    """client_credentials with private_key_jwt, the assertion signed and sent by Authlib's PrivateKeyJWT."""
    client = OAuth2Client(SESSION, client_id=given['client_id'], client_secret=given['private'], token_endpoint_auth_method='private_key_jwt')
    # Authlib's assertions live an hour by default; SMART Backend Services allows five minutes.
    client.register_client_auth_method(PrivateKeyJWT(given['token_endpoint'], alg=given['alg'], claims={'exp': int(time.time()) + 120}))
    try:
        return {'token': dict(client.fetch_token(given['token_endpoint'], grant_type='client_credentials', scope=given['scope']))}
    except OAuth2Error as err:
        return {'error': err.error, 'description': err.description}


def backend_assertion(given):
    """One assertion as the test asks (claims and header changed, another algorithm), for sending as it is."""
    claims = {'exp': int(time.time()) + 120, **given.get('claims', {})}
    args = (given['client_id'], given['token_endpoint'])
    if given['alg'] == 'HS256':
        return client_secret_jwt_sign(given['secret'], *args, claims=claims).decode()
    if given['alg'] == 'none':
        payload = {'iss': args[0], 'sub': args[0], 'aud': args[1], 'jti': generate_token(36), 'iat': int(time.time()), **claims}
        return JsonWebToken(['none']).encode({'alg': 'none'}, payload, None).decode()
    return private_key_jwt_sign(given['private'], *args, alg=given['alg'], claims=claims, header=given.get('header')).decode()


COMMANDS = {
    'backend-keys': backend_keys,
    'backend-grant': backend_grant,
    'backend-assertion': backend_assertion,
    'discover': discover,
    'register': register,
    'authorize': authorize,
    'exchange': exchange,
    'api': api,
    'refresh': refresh,
    'replay-refresh': replay_refresh,
    'revoke': revoke,
    'api-until-refused': api_until_refused,
    'introspect': introspect,
}

if __name__ == '__main__':
    if len(sys.argv) != 2 or sys.argv[1] not in COMMANDS:
        sys.exit(f'usage: authlib_client.py {{{"|".join(COMMANDS)}}} < input.json')
    json.dump(COMMANDS[sys.argv[1]](json.load(sys.stdin)), sys.stdout)
