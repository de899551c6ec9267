"""Who may call the HTTP server: Host/Origin checks against DNS rebinding, and the bearer token.

Policy
* Loopback host (127.0.0.1, localhost, ::1, any 127.x): the SDK's DNS-rebinding protection is on by
  default (Host must be 127.0.0.1:*, localhost:* or [::1]:*); --allowed-hosts adds names to it.
  A token in SPAN_SERVER_TOKEN is optional there, and enforced when set.
* Any other host (0.0.0.0, a LAN address, a hostname): the operator must name the allowed Host
  headers (--allowed-hosts or SPAN_SERVER_ALLOWED_HOSTS) AND set a bearer token in
  SPAN_SERVER_TOKEN; otherwise the server refuses to start with a one-line error.
* /health answers without a token (for load balancers); everything else needs
  `Authorization: Bearer <token>` when a token is configured.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from . import StartupError

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings

TOKEN_ENV = "SPAN_SERVER_TOKEN"
ALLOWED_HOSTS_ENV = "SPAN_SERVER_ALLOWED_HOSTS"
ALLOWED_ORIGINS_ENV = "SPAN_SERVER_ALLOWED_ORIGINS"
MIN_TOKEN_LENGTH = 16
PUBLIC_PATHS = frozenset({"/health"})

# What the SDK allows by itself on loopback (mcp/server/lowlevel/server.py).
LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
LOOPBACK_ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]


def is_loopback(host: str) -> bool:
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def split_list(values: list[str] | None, env: str) -> list[str]:
    """Flag values (repeatable, comma-separated) or else the environment variable's comma list."""
    raw = values if values else [os.environ.get(env, "")]
    return [item.strip() for chunk in raw for item in chunk.split(",") if item.strip()]


def _host_patterns(entry: str) -> list[str]:
    # "example.com" -> the bare name (default port, e.g. behind a proxy) and any port;
    # "example.com:8443" or "[2001:db8::1]:8000" -> exactly that.
    if entry.startswith("[") and "]" in entry:
        has_port = entry.rsplit("]", 1)[1].startswith(":")
    else:
        has_port = entry.count(":") == 1
    return [entry] if has_port else [entry, f"{entry}:*"]


def _origin_patterns(host_patterns: list[str]) -> list[str]:
    return [f"{scheme}://{h}" for h in host_patterns for scheme in ("http", "https")]


@dataclass
class HttpSecurity:
    transport_security: "TransportSecuritySettings"
    token: str | None
    allowed_hosts: list[str] = field(default_factory=list)

    def describe(self) -> str:
        hosts = ", ".join(self.allowed_hosts)
        auth = "bearer token required" if self.token else "no token"
        return f"allowed Host headers: {hosts}; {auth}"


def resolve_security(host: str, allowed_hosts: list[str] | None = None,
                     allowed_origins: list[str] | None = None) -> HttpSecurity:
    """Apply the policy above; raise StartupError with a one-line reason when it is not met."""
    hosts = split_list(allowed_hosts, ALLOWED_HOSTS_ENV)
    origins = split_list(allowed_origins, ALLOWED_ORIGINS_ENV)
    token = os.environ.get(TOKEN_ENV) or None
    if any(h in ("*", "*:*") for h in hosts):
        raise StartupError("--allowed-hosts '*' would switch DNS-rebinding protection off; name the hosts "
                           "clients use (e.g. mcp.example.com or 10.0.0.5:8000)")
    if token is not None:
        token = token.strip()
        if len(token) < MIN_TOKEN_LENGTH:
            raise StartupError(f"{TOKEN_ENV} must be at least {MIN_TOKEN_LENGTH} characters "
                               f"(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)")
    loopback = is_loopback(host)
    if not loopback:
        missing = []
        if not hosts:
            missing.append(f"the allowed Host headers (--allowed-hosts or {ALLOWED_HOSTS_ENV})")
        if token is None:
            missing.append(f"a bearer token in {TOKEN_ENV}")
        if missing:
            raise StartupError(f"--host {host} is not a loopback address; to serve beyond this machine "
                               f"set {' and '.join(missing)}")
    # Always explicit settings (the SDK turns protection on by itself only for the names 127.0.0.1,
    # localhost and ::1, not for e.g. 127.0.0.2).
    extra = [p for h in hosts for p in _host_patterns(h)]
    if loopback:
        own = [] if host in ("127.0.0.1", "localhost", "::1") else _host_patterns(
            f"[{host}]" if ":" in host and not host.startswith("[") else host)
        host_patterns = LOOPBACK_HOSTS + own + extra
        origin_patterns = origins or (LOOPBACK_ORIGINS + _origin_patterns(own + extra))
    else:
        host_patterns = extra
        origin_patterns = origins or _origin_patterns(extra)
    from mcp.server.transport_security import TransportSecuritySettings

    settings = TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                         allowed_hosts=host_patterns, allowed_origins=origin_patterns)
    return HttpSecurity(settings, token, host_patterns)


class BearerTokenMiddleware:
    """ASGI middleware: every HTTP request except PUBLIC_PATHS needs `Authorization: Bearer <token>`."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") not in PUBLIC_PATHS:
            scheme, _, credential = Headers(scope=scope).get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(credential.strip().encode(), self._token):
                response = JSONResponse(
                    {"error": "invalid_token",
                     "error_description": "missing or wrong bearer token (Authorization: Bearer <token>)"},
                    status_code=401, headers={"WWW-Authenticate": 'Bearer realm="span-server"'})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
