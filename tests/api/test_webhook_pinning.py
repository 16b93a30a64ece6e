"""Webhook delivery connects to the address that was checked (no DNS rebinding), keeping the
Host header and, over https, the TLS server name and certificate check by name."""

from __future__ import annotations

import http.server
import socket
import ssl
import subprocess
import uuid

import pytest

from debates import services, webhooks
from debates.models import WebhookDelivery
from tests.support.threads import serve_in_thread

NAME = "hooks.example.test"
PUBLIC = "93.184.215.14"  # a global address; nothing answers it from the test machine


class ChangingResolver:
    """Answers `NAME` with each address in turn (the last one from then on); other names are
    resolved as usual. Counts the lookups of `NAME`."""

    def __init__(self, monkeypatch, *answers: str):
        self.answers = list(answers)
        self.lookups = 0
        real = socket.getaddrinfo

        def getaddrinfo(host, port, *args, **kwargs):
            if host != NAME:
                return real(host, port, *args, **kwargs)
            address = self.answers[min(self.lookups, len(self.answers) - 1)]
            self.lookups += 1
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port)))]

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


class LocalReceiver:
    """An http or https receiver on 127.0.0.1 recording each request's Host header and, over
    TLS, the server name the client sent."""

    def __init__(self, tls_context: ssl.SSLContext | None = None):
        self.requests: list[dict] = []
        self.server_names: list[str | None] = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.requests.append({"path": self.path, "host": self.headers["Host"]})
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        if tls_context is not None:
            tls_context.sni_callback = lambda sock, name, ctx: self.server_names.append(name)
            self.server.socket = tls_context.wrap_socket(self.server.socket, server_side=True)
        self.thread = serve_in_thread(self.server)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def certificates(tmp_path):
    """A CA, and a server certificate it signed for `NAME` only (not for 127.0.0.1)."""

    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=tmp_path, check=True, capture_output=True)

    openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "1",
        "-subj",
        "/CN=Webhook test CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
    )
    openssl(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        f"/CN={NAME}",
    )
    (tmp_path / "ext.cnf").write_text(
        f"subjectAltName=DNS:{NAME}\nbasicConstraints=CA:FALSE\n"
        "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"
        "authorityKeyIdentifier=keyid\nsubjectKeyIdentifier=hash\n"
    )
    openssl(
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "1",
        "-extfile",
        "ext.cnf",
    )
    return tmp_path


@pytest.fixture
def owner(django_user_model, default_agents):
    return django_user_model.objects.create_user("ana", password="a-long-passphrase")


def deliver_once(owner, url: str) -> WebhookDelivery:
    debate = services.debate_create(query="Is it raining?", created_by=owner, enqueue=False)
    event_id = uuid.uuid4()
    webhooks.deliver(
        event_id=event_id,
        debate_id=debate.id,
        event="debate.completed",
        url=url,
        payload=webhooks.event_payload(debate=debate, event="debate.completed", event_id=event_id),
        attempt=1,
    )
    return WebhookDelivery.objects.get(event_id=event_id)


@pytest.mark.django_db
def test_a_host_that_rebinds_to_loopback_after_the_check_never_reaches_it(
    monkeypatch, settings, owner
):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    settings.WEBHOOK_TIMEOUT = 1.0
    receiver = LocalReceiver()
    try:
        resolver = ChangingResolver(monkeypatch, PUBLIC, "127.0.0.1")
        delivery = deliver_once(owner, f"http://{NAME}:{receiver.port}/hooks")
    finally:
        receiver.close()

    assert resolver.lookups == 1  # checked once, never looked up again
    assert receiver.requests == []  # the loopback receiver was not reached
    assert delivery.status == WebhookDelivery.Status.FAILED  # a network error, retried later
    assert PUBLIC in delivery.error


@pytest.mark.django_db
def test_delivery_goes_to_the_checked_address_with_the_host_header_of_the_name(
    monkeypatch, settings, owner
):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True  # the receiver lives on 127.0.0.1
    receiver = LocalReceiver()
    try:
        resolver = ChangingResolver(monkeypatch, "127.0.0.1", "10.255.255.1")
        delivery = deliver_once(owner, f"http://{NAME}:{receiver.port}/hooks?x=1")
    finally:
        receiver.close()

    assert resolver.lookups == 1
    assert delivery.status == WebhookDelivery.Status.DELIVERED, delivery.error
    assert receiver.requests == [{"path": "/hooks?x=1", "host": f"{NAME}:{receiver.port}"}]


@pytest.mark.django_db
def test_over_https_the_pinned_connection_sends_and_verifies_the_host_name(
    monkeypatch, settings, owner, certificates
):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    settings.WEBHOOK_CA_BUNDLE = str(certificates / "ca.pem")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificates / "server.pem", certificates / "server.key")
    receiver = LocalReceiver(context)
    try:
        ChangingResolver(monkeypatch, "127.0.0.1", "10.255.255.1")
        delivered = deliver_once(owner, f"https://{NAME}:{receiver.port}/hooks")
        # The same receiver under a name its certificate does not carry is refused.
        refused = deliver_once(owner, f"https://127.0.0.1:{receiver.port}/hooks")
    finally:
        receiver.close()

    assert delivered.status == WebhookDelivery.Status.DELIVERED, delivered.error
    assert receiver.server_names[0] == NAME
    assert receiver.requests == [{"path": "/hooks", "host": f"{NAME}:{receiver.port}"}]
    assert refused.status_code is None and "certificate" in refused.error.lower()
