"""The client's address, the one sign-in and sign-up limits count by.

REMOTE_ADDR, unless settings.TRUSTED_PROXY_COUNT proxies stand in front of the site: then
X-Forwarded-For, which each proxy extends with the address it got the request from, is read
that many entries from its right end, the address the outermost of our proxies saw. Entries
further left are what the client claims and are never used.
"""

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    remote = request.META.get("REMOTE_ADDR", "")
    count = settings.TRUSTED_PROXY_COUNT
    if count:
        forwarded = [
            part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        ]
        if len(forwarded) >= count:
            try:
                return str(ipaddress.ip_address(forwarded[-count]))
            except ValueError:
                pass
    return remote
