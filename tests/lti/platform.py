"""A small LTI 1.3 platform (an LMS's end) on loopback, over real HTTP in a thread: its own
keys and JWKS, the OIDC authorization endpoint that signs launches, the token endpoint that
checks the tool's signed assertion against the tool's JWKS, the course's AGS line items
(listed, made) that keep the scores they take, and an NRPS roster. Built on jwcrypto and
PyJWT, as an LMS would be."""

import html
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
import requests
from jwcrypto.jwk import JWK

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


def _pem(key: JWK) -> bytes:
    return key.export_to_pem(private_key=True, password=None)


class LmsPlatform:
    def __init__(
        self, client_id: str = "quizsite-client", deployment_id: str = "dep-1", host: str = ""
    ):
        self.client_id = client_id
        self.deployment_id = deployment_id
        self.key = JWK.generate(kty="RSA", size=2048, kid="platform-key")
        self.tool_jwks_url = ""
        self.scores: list[dict] = []
        self.refuse_scores = False
        self.lineitems: list[dict] = []  # The course's gradebook columns, as AGS shows them.
        self.refuse_lineitems = False
        self.members: list[dict] = []
        self.refuse_roster = False
        self.tokens: set[str] = set()
        self.launches: dict[str, dict] = {}  # login_hint: the claims the next launch carries
        self.deep_link_responses: list[dict] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        # `host` names the loopback as the tool's address does ("localhost"), for a browser.
        self.url = f"http://{host or '127.0.0.1'}:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "LmsPlatform":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    # What the site's admin registers.
    @property
    def issuer(self) -> str:
        return self.url

    def registration(self) -> dict:
        return {
            "name": "Test LMS",
            "issuer": self.issuer,
            "client_id": self.client_id,
            "auth_login_url": self.url + "/auth",
            "token_url": self.url + "/token",
            "keyset_url": self.url + "/jwks",
            "deployment_ids": self.deployment_id,
        }

    def lineitem_url(self, name: str = "1") -> str:
        return f"{self.url}/lineitems/{name}/lineitem"

    def claims(
        self,
        *,
        sub: str,
        roles=(LEARNER,),
        quiz: str = "",
        link: str = "link-1",
        context: str = "course-1",
        locale: str = "en",
        lineitem: str = "1",
        **more,
    ):
        claims = {
            "sub": sub,
            "given_name": "Ada",
            "family_name": "Lovelace",
            "email": f"{sub}@lms.example",
            CLAIM + "message_type": "LtiResourceLinkRequest",
            CLAIM + "version": "1.3.0",
            CLAIM + "deployment_id": self.deployment_id,
            CLAIM + "target_link_uri": "",
            CLAIM + "roles": list(roles),
            CLAIM + "context": {"id": context, "title": "Data parallelism 101", "label": "DP101"},
            CLAIM + "resource_link": {"id": link, "title": "Quiz"},
            CLAIM + "launch_presentation": {"locale": locale, "document_target": "iframe"},
            # A link without a column of its own (lineitem=""): the course's columns only.
            "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
                "scope": [
                    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
                    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
                ],
                "lineitems": self.url + "/lineitems",
            }
            | ({"lineitem": self.lineitem_url(lineitem)} if lineitem else {}),
            "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
                "context_memberships_url": self.url + "/memberships",
                "service_versions": ["2.0"],
            },
        }
        if quiz:
            claims[CLAIM + "custom"] = {"quiz": quiz}
        claims.update(more)
        return claims

    def deep_link_claims(self, *, sub: str, several: bool = False) -> dict:
        claims = self.claims(sub=sub, roles=[INSTRUCTOR])
        del claims[CLAIM + "resource_link"]
        return claims | {
            CLAIM + "message_type": "LtiDeepLinkingRequest",
            "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": {
                "deep_link_return_url": self.url + "/deep-link-return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"],
                "accept_multiple": several,
                "data": "opaque-platform-data",
            },
        }

    def login_params(self, tool_url: str, login_hint: str) -> dict:
        return {
            "iss": self.issuer,
            "login_hint": login_hint,
            "target_link_uri": tool_url + "/lti/launch/",
            "client_id": self.client_id,
            "lti_deployment_id": self.deployment_id,
        }

    def id_token(
        self, claims: dict, *, nonce: str, key: JWK | None = None, aud=None, lifetime: int = 300
    ) -> str:
        now = int(time.time())
        body = {
            "iss": self.issuer,
            "aud": aud or self.client_id,
            "iat": now,
            "exp": now + lifetime,
            "nonce": nonce,
            **claims,
        }
        key = key or self.key
        return jwt.encode(body, _pem(key), algorithm="RS256", headers={"kid": key.get("kid")})

    def _check_bearer(self, handler) -> bool:
        token = handler.headers.get("Authorization", "").removeprefix("Bearer ")
        return token in self.tokens

    def _tool_assertion_ok(self, assertion: str) -> bool:
        keys = requests.get(self.tool_jwks_url, timeout=5).json()["keys"]
        kid = jwt.get_unverified_header(assertion).get("kid")
        for key in keys:
            if key["kid"] == kid:
                public = JWK(**key).export_to_pem()
                jwt.decode(assertion, public, algorithms=["RS256"], audience=self.url + "/token")
                return True
        return False

    def _handler(self):
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, body: str, kind: str = "application/json"):
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _form(self) -> dict:
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length).decode()
                if self.headers.get("Content-Type", "").startswith("application/x-www-form"):
                    return {k: v[0] for k, v in parse_qs(raw).items()}
                return json.loads(raw or "{}")

            def do_GET(self):
                parts = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                if parts.path == "/jwks":
                    return self._send(
                        200, json.dumps({"keys": [platform.key.export_public(as_dict=True)]})
                    )
                if parts.path == "/auth":
                    return self._authorize(query)
                if parts.path == "/memberships":
                    if not platform._check_bearer(self):
                        return self._send(401, "{}")
                    if platform.refuse_roster:
                        return self._send(503, '{"error": "down for maintenance"}')
                    body = {
                        "id": parts.path,
                        "context": {"id": "course-1"},
                        "members": platform.members,
                    }
                    return self._send(
                        200,
                        json.dumps(body),
                        "application/vnd.ims.lti-nrps.v2.membershipcontainer+json",
                    )
                if parts.path == "/course":
                    return self._course(query)
                if parts.path == "/lineitems":
                    if not platform._check_bearer(self):
                        return self._send(401, "{}")
                    if platform.refuse_lineitems:
                        return self._send(503, '{"error": "down for maintenance"}')
                    link = query.get("resource_link_id")
                    items = [
                        item
                        for item in platform.lineitems
                        if link is None or item.get("resourceLinkId") == link
                    ]
                    return self._send(
                        200, json.dumps(items), "application/vnd.ims.lis.v2.lineitemcontainer+json"
                    )
                return self._send(404, "{}")

            def _course(self, query):
                # The LMS's course page: the tool in an iframe, launched by the OIDC login.
                src = (
                    query["tool"]
                    + "/lti/login/?"
                    + urlencode(platform.login_params(query["tool"], query["hint"]))
                )
                page = (
                    f"<!doctype html><title>Course</title><h1>Course</h1>"
                    f'<iframe name="tool" title="Quiz" src="{html.escape(src)}" '
                    f'style="width:100%;height:700px"></iframe>'
                )
                return self._send(200, page, "text/html")

            def _authorize(self, query):
                claims = platform.launches.get(query.get("login_hint", ""))
                if claims is None or query.get("client_id") != platform.client_id:
                    return self._send(400, '{"error": "unknown login"}')
                claims = {**claims, CLAIM + "target_link_uri": query["redirect_uri"]}
                token = platform.id_token(claims, nonce=query["nonce"])
                page = (
                    f"<!doctype html><title>Launching</title>"
                    f'<form method="post" action="{html.escape(query["redirect_uri"])}">'
                    f'<input type="hidden" name="id_token" value="{token}">'
                    f'<input type="hidden" name="state" value="{html.escape(query["state"])}">'
                    f"<button>Continue</button></form>"
                    f"<script>document.forms[0].submit()</script>"
                )
                return self._send(200, page, "text/html")

            def do_POST(self):
                parts = urlsplit(self.path)
                form = self._form()
                if parts.path == "/token":
                    try:
                        ok = platform._tool_assertion_ok(form["client_assertion"])
                    except (KeyError, jwt.InvalidTokenError):
                        ok = False
                    if not ok:
                        return self._send(401, '{"error": "invalid_client"}')
                    token = uuid.uuid4().hex
                    platform.tokens.add(token)
                    return self._send(
                        200,
                        json.dumps(
                            {"access_token": token, "token_type": "Bearer", "expires_in": 3600}
                        ),
                    )
                if parts.path == "/lineitems":
                    if not platform._check_bearer(self):
                        return self._send(401, "{}")
                    if platform.refuse_lineitems:
                        return self._send(503, '{"error": "down for maintenance"}')
                    made = {**form, "id": platform.lineitem_url(f"made-{len(platform.lineitems)}")}
                    platform.lineitems.append(made)
                    return self._send(
                        201, json.dumps(made), "application/vnd.ims.lis.v2.lineitem+json"
                    )
                if parts.path.startswith("/lineitems/") and parts.path.endswith("/scores"):
                    if not platform._check_bearer(self):
                        return self._send(401, "{}")
                    if platform.refuse_scores:
                        return self._send(503, '{"error": "down for maintenance"}')
                    platform.scores.append({"lineitem": parts.path, **form})
                    return self._send(200, "{}")
                if parts.path == "/deep-link-return":
                    platform.deep_link_responses.append(form)
                    return self._send(
                        200, "<!doctype html><title>Added</title><p>Added.</p>", "text/html"
                    )
                return self._send(404, "{}")

        return Handler
