"""Where a webhook event may be sent, and sending it there: a callback URL is checked, and its
host resolved, once (`check_callback`); delivery then connects to that address and nothing
else (`post`), so a host that answers with another address later (DNS rebinding) is never
looked up again. Used by `debates.webhooks`, and by the API, forms and services that take a
callback URL (`callback_url_problem`)."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter

from config import tracing

#: How much of a receiver's answer is kept with the delivery attempt.
RESPONSE_EXCERPT_BYTES = 2000


@dataclass(frozen=True)
class CallbackTarget:
    """A callback URL checked and resolved: `address` is the one to connect to."""

    problem: str | None
    host: str = ""
    port: int = 0
    address: str = ""


def _is_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return (
        address.is_global
        and not address.is_multicast
        and not address.is_reserved
        and not address.is_unspecified
    )


def check_callback(
    url: str, *, allow_private: bool | None = None, resolve: bool = True
) -> CallbackTarget:
    """Check `url` as a callback target and resolve its host, once.

    Only http and https. Unless private addresses are allowed (settings), the host must resolve,
    and only to public addresses: no loopback, private, link-local (cloud metadata), multicast
    or reserved ones, so a callback cannot reach into the service's own network. Delivery then
    connects to the returned `address` and nothing else (`post`): a host that answers with
    another address on a second lookup (DNS rebinding) is never looked up again.
    """
    if allow_private is None:
        allow_private = settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return CallbackTarget("Enter a valid URL.")
    if parts.scheme not in ("http", "https"):
        return CallbackTarget("Only http:// and https:// callback URLs are accepted.")
    host = parts.hostname
    if not host:
        return CallbackTarget("The callback URL needs a host name.")
    port = port or (443 if parts.scheme == "https" else 80)
    if allow_private and not resolve:
        return CallbackTarget(None, host=host, port=port)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return CallbackTarget(
            f"The host '{host}' could not be resolved; use a public host name or address."
        )
    addresses = []
    for *_, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
            address = address.ipv4_mapped
        if not allow_private and not _is_public(address):
            return CallbackTarget(
                f"The host '{host}' resolves to {address}, a private, loopback or link-local "
                "address. Callbacks must go to a public address."
            )
        addresses.append(address)
    if not addresses:
        return CallbackTarget(f"The host '{host}' has no address.")
    return CallbackTarget(None, host=host, port=port, address=str(addresses[0]))


def callback_url_problem(url: str, *, allow_private: bool | None = None) -> str | None:
    """What is wrong with `url` as a callback target, or None (see `check_callback`)."""
    return check_callback(url, allow_private=allow_private, resolve=False).problem


# --- sending to the checked address -----------------------------------------------------------


class _PinnedAdapter(HTTPAdapter):
    """Connects to the URL's host (an address), while TLS sends and verifies `hostname`."""

    def __init__(self, hostname: str):
        self.hostname = hostname
        super().__init__(max_retries=0)

    def init_poolmanager(self, connections, maxsize, block=False, **pool_kwargs):
        # Both are TLS settings: urllib3 drops them for plain http pools.
        pool_kwargs.update(server_hostname=self.hostname, assert_hostname=self.hostname)
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)


def _pinned_url(url: str, target: CallbackTarget) -> tuple[str, str]:
    """`url` with its host replaced by the checked address, and the Host header to send."""
    parts = urlsplit(url)
    address = f"[{target.address}]" if ":" in target.address else target.address
    default = 443 if parts.scheme == "https" else 80
    netloc = address if target.port == default else f"{address}:{target.port}"
    host_name = f"[{target.host}]" if ":" in target.host else target.host
    host_header = host_name if target.port == default else f"{host_name}:{target.port}"
    return parts._replace(netloc=netloc).geturl(), host_header


def post(
    *, url: str, target: CallbackTarget, body: bytes, headers: dict[str, str], traced: dict
) -> tuple[int, str]:
    """POST to the address that was checked, never to a fresh lookup of the host. The Host
    header and, over https, the TLS server name and certificate check use the host name.

    One `webhook.post` span (docs/operations/traces.md): the receiver's host name, the answer's
    status code, and what `traced` names (the event, and the debate and attempt of a delivery);
    never the URL's path or query, the body or the headers."""
    attributes = {f"debates.webhook.{name}": str(value) for name, value in traced.items()}
    attributes["server.address"] = target.host
    with tracing.span("webhook.post", attributes, client=True) as span:
        status, excerpt = _post(url=url, target=target, body=body, headers=headers)
        span.set_attribute("http.response.status_code", status)
        return status, excerpt


def _post(
    *, url: str, target: CallbackTarget, body: bytes, headers: dict[str, str]
) -> tuple[int, str]:
    pinned, host_header = _pinned_url(url, target)
    with requests.Session() as session:
        session.trust_env = False  # no proxies from the environment: they would resolve again
        session.mount("https://", _PinnedAdapter(target.host))
        session.mount("http://", HTTPAdapter(max_retries=0))
        with session.post(
            pinned,
            data=body,
            headers={**headers, "Host": host_header},
            timeout=settings.WEBHOOK_TIMEOUT,
            allow_redirects=False,
            stream=True,
            verify=settings.WEBHOOK_CA_BUNDLE or True,
        ) as response:
            excerpt = response.raw.read(RESPONSE_EXCERPT_BYTES, decode_content=True) or b""
            return response.status_code, excerpt.decode("utf-8", errors="replace")
