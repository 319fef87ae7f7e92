# Two images: the web service (target web: production settings from the environment, gunicorn
# on port 8000 of the compose network) and the proxy in front of it (target proxy: nginx with
# the static files). Their commands are the ones `make serve` runs (tests/test_deployment.py
# holds them together).
FROM python:3.12-slim AS web

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update && apt-get install -y --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . .
RUN pip install -e .
RUN msgfmt --check -o locale/fr/LC_MESSAGES/django.mo locale/fr/LC_MESSAGES/django.po
RUN DEBUG=false SECRET_KEY=only-for-collectstatic python manage.py collectstatic --noinput
# The proxy's configuration, for the compose file's network (gunicorn at web:8000), its logs to
# the container's output.
RUN mkdir -p var/nginx && DEBUG=false SECRET_KEY=only-for-proxy-config TRUSTED_PROXY_COUNT=1 \
    HOST=0.0.0.0 PORT=8000 GUNICORN_BIND=web:8000 PROXY_ACCESS_LOG=/dev/stdout PROXY_ERROR_LOG=stderr \
    python manage.py proxy_config > var/nginx/nginx.conf

RUN useradd --system --no-create-home quizsite \
    && mkdir -p var/media var/private && chown quizsite var/media var/private
USER quizsite
ENV DEBUG=false HOST=0.0.0.0 PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"
CMD ["sh", "-c", "python manage.py migrate --noinput && exec gunicorn --config gunicorn.conf.py quizsite.wsgi"]

# The proxy (docs/deployment.md, "The proxy in front"): Debian's nginx, as an ordinary user, on
# port 8000, serving the static files collected above and the uploaded images (the media-data
# volume, read-only), everything else from the web service.
FROM debian:trixie-slim AS proxy
RUN apt-get update && apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --no-create-home quizsite \
    && mkdir -p /app/var/nginx/logs /app/var/nginx/temp /app/var/media \
    && chown -R quizsite /app/var/nginx
COPY --from=web /app/var/static /app/var/static
COPY --from=web /app/var/nginx/nginx.conf /app/var/nginx/nginx.conf
USER quizsite
EXPOSE 8000
CMD ["nginx", "-p", "/app/var/nginx/", "-c", "nginx.conf", "-e", "stderr", "-g", "daemon off;"]
