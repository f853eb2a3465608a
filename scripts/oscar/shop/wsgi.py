"""WSGI entry of the django-oscar proving ground, with an access log (one line per
request: address, time, request line, status, bytes, seconds) in STATE/log/access.log."""

import os
import threading
import time

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")
_app = get_wsgi_application()
_lock = threading.Lock()
_log = open(os.path.join(os.environ.get("OSCAR_GROUND_STATE", "/tmp/dustpan-oscar"), "log", "access.log"), "a")


def application(environ, start_response):
    t0 = time.monotonic()
    seen = {}

    def start(status, headers, exc_info=None):
        seen["status"] = status.split(" ", 1)[0]
        return start_response(status, headers, exc_info)

    body = _app(environ, start)
    n = 0
    try:
        for chunk in body:
            n += len(chunk)
            yield chunk
    finally:
        if hasattr(body, "close"):
            body.close()
        uri = environ.get("RAW_URI") or (
            environ.get("PATH_INFO", "") + ("?" + environ["QUERY_STRING"] if environ.get("QUERY_STRING") else ""))
        line = (f'{environ.get("REMOTE_ADDR", "-")} [{time.strftime("%d/%b/%Y:%H:%M:%S")}] '
                f'"{environ.get("REQUEST_METHOD")} {uri} {environ.get("SERVER_PROTOCOL")}" '
                f'{seen.get("status", "-")} {n} {time.monotonic() - t0:.3f}\n')
        with _lock:
            _log.write(line)
            _log.flush()
