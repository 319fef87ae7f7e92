import os
import re

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

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
        "it listens on HOST:PORT, sends to GUNICORN_BIND, serves the static and media files and "
        "refuses bodies over settings.REQUEST_BODY_LIMITS."
    )

    def handle(self, *args, **options):
        upstream = os.environ.get("GUNICORN_BIND", "")
        if not upstream:
            raise CommandError(
                "Set GUNICORN_BIND to where gunicorn listens (unix:PATH or HOST:PORT)."
            )
        if settings.TRUSTED_PROXY_COUNT < 1:
            raise CommandError(
                "Set TRUSTED_PROXY_COUNT=1: behind this proxy the client's address is in "
                "X-Forwarded-For (docs/deployment.md)."
            )
        values = {
            "LISTEN": f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}",
            "UPSTREAM": upstream,
            "BODY_LIMIT": str(settings.REQUEST_BODY_LIMITS["/"]),
            "STATIC_URL": "/" + settings.STATIC_URL.lstrip("/"),
            "STATIC_ROOT": quoted(f"{settings.STATIC_ROOT}/"),
            "MEDIA": media_location(),
            "LIMITED_LOCATIONS": limited_locations(),
            "ACCESS_LOG": os.environ.get("PROXY_ACCESS_LOG", "logs/access.log"),
            "ERROR_LOG": os.environ.get("PROXY_ERROR_LOG", "logs/error.log"),
        }
        self.stdout.write(PLACEHOLDER.sub(lambda m: values[m[1]], TEMPLATE.read_text()), ending="")
