import os
import re

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.template.loader import render_to_string
from django.utils import translation

TEMPLATE = settings.BASE_DIR / "deploy" / "nginx.conf.template"
PLACEHOLDER = re.compile(r"\$\{([A-Z_]+)\}")


def quoted(value: str) -> str:
    """A value as one nginx word, whatever it holds."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def location(prefix: str, body: str) -> str:
    return f"        location ^~ {prefix} {{\n{body}        }}\n"


def limited_locations() -> str:
    """A location of each path with a body limit of its own (settings.REQUEST_BODY_LIMITS)."""
    return "".join(
        location(
            prefix,
            f"            client_max_body_size {limit};\n            proxy_pass http://quizsite;\n",
        )
        for prefix, limit in sorted(settings.REQUEST_BODY_LIMITS.items())
        if prefix != "/"
    )


def upstream_servers(upstreams: list[str]) -> str:
    """A `server` line of each web node: after 3 failures within 10 s, none for 10 s (passive
    checks). Not after one: a GET over gunicorn's timeout is killed on each node it is tried
    on, and would take them all out of the rotation."""
    return "".join(
        f"        server {address} max_fails=3 fail_timeout=10s;\n" for address in upstreams
    )


def unavailable_page() -> str:
    """templates/proxy_unavailable.html in each language, by the path's language prefix."""
    lines = []
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            page = render_to_string("proxy_unavailable.html", {"LANGUAGE_CODE": code})
        if "$" in page:  # nginx would read it as a variable
            raise CommandError("templates/proxy_unavailable.html must hold no '$'.")
        text = "'" + page.replace("\\", "\\\\").replace("'", "\\'") + "'"
        if code == settings.LANGUAGE_CODE:
            default = f"            return 502 {text};\n"
        else:
            lines.append(
                f'            if ($uri ~ "^/{code}/") {{\n'
                f"                return 502 {text};\n            }}\n"
            )
    return "".join(lines) + default


def media_location() -> str:
    """Uploaded images straight from MEDIA_ROOT, when they are files there (SERVE_MEDIA)."""
    if not settings.SERVE_MEDIA:
        return ""
    return location(
        settings.MEDIA_URL,
        f"            alias {quoted(f'{settings.MEDIA_ROOT}/')};\n"
        "            add_header X-Content-Type-Options nosniff always;\n"
        '            add_header Cache-Control "public, max-age=31536000, immutable" always;\n',
    )


class Command(BaseCommand):
    help = (
        "Print the configuration of the nginx in front of gunicorn (deploy/nginx.conf.template): "
        "it listens on HOST:PORT, sends to GUNICORN_BIND (or each of PROXY_UPSTREAMS), serves "
        "the static and media files and refuses bodies over settings.REQUEST_BODY_LIMITS."
    )

    def handle(self, *args, **options):
        upstreams = (
            os.environ.get("PROXY_UPSTREAMS") or os.environ.get("GUNICORN_BIND", "")
        ).split()
        if not upstreams:
            raise CommandError(
                "Set GUNICORN_BIND to where gunicorn listens (unix:PATH or HOST:PORT), or "
                "PROXY_UPSTREAMS to where each of several nodes does."
            )
        if settings.TRUSTED_PROXY_COUNT < 1:
            raise CommandError(
                "Set TRUSTED_PROXY_COUNT=1: behind this proxy the client's address is in "
                "X-Forwarded-For (docs/deployment.md)."
            )
        values = {
            "LISTEN": f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}",
            "UPSTREAM_SERVERS": upstream_servers(upstreams),
            "UNAVAILABLE": unavailable_page(),
            "BODY_LIMIT": str(settings.REQUEST_BODY_LIMITS["/"]),
            "STATIC_URL": "/" + settings.STATIC_URL.lstrip("/"),
            "STATIC_ROOT": quoted(f"{settings.STATIC_ROOT}/"),
            "MEDIA": media_location(),
            "LIMITED_LOCATIONS": limited_locations(),
            "ACCESS_LOG": os.environ.get("PROXY_ACCESS_LOG", "logs/access.log"),
            "ERROR_LOG": os.environ.get("PROXY_ERROR_LOG", "logs/error.log"),
        }
        self.stdout.write(PLACEHOLDER.sub(lambda m: values[m[1]], TEMPLATE.read_text()), ending="")
