"""The protocol registry: every way to debate the service knows, by name."""

from debates.protocols.base import ProtocolError
from debates.protocols.s4 import S4Protocol

PROTOCOLS = {S4Protocol.name: S4Protocol}


def get_protocol(name: str):
    try:
        return PROTOCOLS[name]
    except KeyError:
        known = ", ".join(sorted(PROTOCOLS))
        raise ProtocolError(f"Unknown protocol '{name}'. Known protocols: {known}.") from None


__all__ = ["PROTOCOLS", "ProtocolError", "get_protocol"]
