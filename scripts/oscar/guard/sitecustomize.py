"""Loopback guard of the django-oscar proving ground (on PYTHONPATH, Python loads it at
start): every outgoing connection and name lookup of the shop's processes is checked;
one to an address outside loopback (127.0.0.0/8, ::1) is refused with an OSError and
logged to $OSCAR_GROUND_GUARD_LOG. Binding a listening socket is not affected."""

import ipaddress
import os
import socket
import time

_LOG = os.environ.get("OSCAR_GROUND_GUARD_LOG")
_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo
_sendto = socket.socket.sendto


def _loopback(host):
    if host in ("localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def _refuse(what, target):
    if _LOG:
        with open(_LOG, "a") as f:
            f.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} refused {what} {target!r} (pid {os.getpid()})\n")
    raise OSError(f"proving ground guard: {what} to {target!r} is outside loopback")


def _check(sock, address):
    if sock.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
        _refuse("connect", address)


def connect(self, address):
    _check(self, address)
    return _connect(self, address)


def connect_ex(self, address):
    _check(self, address)
    return _connect_ex(self, address)


def sendto(self, data, *args):
    address = args[-1]
    _check(self, address)
    return _sendto(self, data, *args)


def getaddrinfo(host, *args, **kwargs):
    if host is not None and not _loopback(host if isinstance(host, str) else host.decode()):
        _refuse("getaddrinfo", host)
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect = connect
socket.socket.connect_ex = connect_ex
socket.socket.sendto = sendto
socket.getaddrinfo = getaddrinfo
