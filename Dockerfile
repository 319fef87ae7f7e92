# The web service: production settings from the environment, gunicorn on port 8000.
# Its commands are the ones `make serve` runs (tests/test_deployment.py holds them together).
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update && apt-get install -y --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . .
RUN pip install -e .
RUN msgfmt --check -o locale/fr/LC_MESSAGES/django.mo locale/fr/LC_MESSAGES/django.po
RUN DEBUG=false SECRET_KEY=only-for-collectstatic python manage.py collectstatic --noinput

RUN useradd --system --no-create-home quizsite \
    && mkdir -p var/media var/private && chown quizsite var/media var/private
USER quizsite
ENV DEBUG=false HOST=0.0.0.0 PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"
CMD ["sh", "-c", "python manage.py migrate --noinput && exec gunicorn --config gunicorn.conf.py quizsite.wsgi"]
