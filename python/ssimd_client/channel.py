"""How the Python client reaches one server or many (the same rules as client/channel_config.h).

A comma list of IP:PORT becomes an ipv4:/ipv6: target; a list or a dns:/// name spreads calls
round-robin over the servers whose health says SERVING. ScorePair, ScoreFiles, ScoreLadder and
GetCapabilities are retried on UNAVAILABLE, which gRPC does only before the first response.
"""

import ipaddress
import json
from typing import Any, Dict, List, Tuple, Union

_SERVICE = "ssimd.v1.ScoringService"
_RETRYABLE = ("ScorePair", "ScoreFiles", "ScoreLadder", "GetCapabilities")


def _family(address: str) -> int:
    """4 or 6 for 'IP:PORT' / '[IPv6]:PORT'; ValueError saying what to write otherwise."""
    if address.startswith("["):
        host, sep, port = address[1:].partition("]:")
        if not sep:
            raise ValueError(f"server: {address!r} is not [IPv6]:port")
    else:
        host, sep, port = address.rpartition(":")
        if not sep:
            raise ValueError(f"server: {address!r} has no port; write it as IP:PORT")
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"server: a comma list takes IP addresses, and {host!r} is not one; for "
                         "a name that resolves to several servers use dns:///NAME:PORT") from None
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"server: {address!r} needs a port from 1 to 65535")
    if ip.version == 6 and not address.startswith("["):
        raise ValueError(f"server: write the IPv6 address of {address!r} as [IPv6]:PORT")
    return ip.version


def channel_target(server: str) -> str:
    """The gRPC target of a server value: host:port and URIs pass, comma lists are translated."""
    server = server.strip()
    if not server:
        raise ValueError("server: empty; give host:port, a comma list of IP:PORT, or "
                         "dns:///NAME:PORT")
    if "," not in server or "://" in server or server.startswith(("ipv4:", "ipv6:")):
        return server
    addresses = [a.strip() for a in server.split(",") if a.strip()]
    if not addresses:
        raise ValueError("server: the comma list is empty")
    families = {_family(a) for a in addresses}
    if len(families) != 1:
        raise ValueError("server: a comma list must be all IPv4 or all IPv6 addresses")
    return f"ipv{families.pop()}:" + ",".join(addresses)


def may_name_many_servers(target: str) -> bool:
    return target.startswith("dns:") or (target.startswith(("ipv4:", "ipv6:")) and "," in target)


def service_config(balance: bool) -> str:
    """The channel's service config as JSON text."""
    config: Dict[str, Any] = {"methodConfig": [{
        "name": [{"service": _SERVICE, "method": m} for m in _RETRYABLE],
        "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.1s", "maxBackoff": "2s",
                        "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]},
    }]}
    if balance:
        config["loadBalancingConfig"] = [{"round_robin": {}}]
        config["healthCheckConfig"] = {"serviceName": _SERVICE}
    return json.dumps(config)


def channel_options(target: str,
                    max_message_bytes: int) -> List[Tuple[str, Union[int, str]]]:
    """gRPC channel options: message limits, the service config, and room to retry big calls."""
    return [("grpc.max_send_message_length", max_message_bytes),
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.service_config", service_config(may_name_many_servers(target))),
            ("grpc.per_rpc_retry_buffer_size", max_message_bytes)]
